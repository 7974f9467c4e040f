import type { AppContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { recordReceipt, signatureHeaders, verifySignature } from '../../platform/signed-requests.js';
import { normalizeHostname } from './hostname.js';

/** Event names and statuses meaning "the certificate is issued, the host serves the domain". */
const ISSUED = /(^|[._ -])(issued|active|ready|live)$/i;
/** "The provider checked the domain's records": as our own DNS check passing. */
const VERIFIED = /(^|[._ -])verified$/i;

interface HostedDomainEvent {
  hostname?: unknown;
  domain?: unknown;
  event?: unknown;
  type?: unknown;
  status?: unknown;
  data?: HostedDomainEvent & { object?: HostedDomainEvent };
}

const firstString = (...values: unknown[]) => values.find((value): value is string => typeof value === 'string' && value.length > 0);

/**
 * The hosting provider's callback: signed with HOSTED_DOMAIN_WEBHOOK_SECRET over "timestamp.body",
 * at most 5 minutes old, each delivery accepted once. A "certificate issued" event for a verified
 * (or pending: the provider validated it itself) domain makes it `active`.
 */
export async function receiveHostedDomainWebhook(ctx: AppContext, headers: Record<string, string | string[] | undefined>, rawBody: Buffer) {
  const signed = signatureHeaders(headers);
  verifySignature(signed, rawBody, [ctx.config.hostedDomainWebhookSecret]);
  let event: HostedDomainEvent;
  try {
    event = JSON.parse(rawBody.toString('utf8')) as HostedDomainEvent;
  } catch {
    throw badRequest('The webhook body is not valid JSON');
  }
  if (!event || typeof event !== 'object') throw badRequest('The webhook body must be a JSON object');
  // Flat `{ hostname, event }`, or the event envelope style `{ type, data: { hostname } }`.
  const rawHost = firstString(event.hostname, event.domain, event.data?.hostname, event.data?.domain, event.data?.object?.hostname);
  if (!(await recordReceipt(ctx.db, 'hosted-domain', signed.signature!))) throw badRequest('This webhook delivery was already received (replay refused)');
  // A signed delivery about no domain (a provider's ping or test event) is acknowledged, so it is not retried.
  if (!rawHost) return { received: true, applied: false };

  const kinds = [event.event, event.type, event.status, event.data?.status, event.data?.object?.status].filter((v): v is string => typeof v === 'string');
  const hostname = normalizeHostname(rawHost);
  const domains = () => ctx.db('storeDomains').whereRaw('lower(hostname) = ?', [hostname]);
  if (kinds.some((kind) => ISSUED.test(kind))) {
    const updated = await domains()
      .whereIn('status', ['pending', 'verified', 'failed'])
      .update({ status: 'active', activatedAt: ctx.db.fn.now(), nextCheckAt: null, failures: JSON.stringify([]), updatedAt: ctx.db.fn.now() })
      .returning('id');
    return { received: true, applied: updated.length > 0 };
  }
  if (kinds.some((kind) => VERIFIED.test(kind))) {
    const updated = await domains()
      .whereIn('status', ['pending', 'failed'])
      .update({ status: 'verified', verifiedAt: ctx.db.fn.now(), nextCheckAt: null, failures: JSON.stringify([]), updatedAt: ctx.db.fn.now() })
      .returning('id');
    return { received: true, applied: updated.length > 0 };
  }
  return { received: true, applied: false };
}
