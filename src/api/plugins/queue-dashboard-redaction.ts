import { maskEmail } from '../../platform/secrets.js';

/** Anything shaped like an address, in any string (a failed job's reason, its stack, its logs). */
const EMAIL = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;

/** Keys whose values are personal data or secrets when found in a job's payload or result. */
const PERSONAL_KEY = /^(to|cc|bcc|e-?mail|\w*email|first_?name|last_?name|full_?name|phone|\w*address|line[12]|postal_?code|customer|user|headers|\w*url|\w*token|password|secret)$/i;

/** Fields of bull-board's JSON that hold what a producer put in a job, or what its processor returned. */
const PAYLOAD_FIELDS = new Set(['data', 'returnValue', 'returnvalue']);

/**
 * The queue dashboard's second line of defence (the first: job payloads carry ids, the rest
 * sealed): every JSON answer of bull-board's API passes through here. In a job's data and result,
 * personal fields are replaced whole; everywhere, addresses are masked (`j***@example.com`), so a
 * job queued before payloads were sealed, or an SMTP refusal quoting its recipient, shows none.
 */
export function redactDashboardJson(value: unknown, inPayload = false): unknown {
  if (typeof value === 'string') return value.replace(EMAIL, (address) => maskEmail(address));
  if (Array.isArray(value)) return value.map((item) => redactDashboardJson(item, inPayload));
  if (value === null || typeof value !== 'object') return value;
  const redacted: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (inPayload && PERSONAL_KEY.test(key) && child !== null && child !== undefined) redacted[key] = '[redacted]';
    else redacted[key] = redactDashboardJson(child, inPayload || PAYLOAD_FIELDS.has(key));
  }
  return redacted;
}
