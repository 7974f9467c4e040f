import { pino, type Logger } from 'pino';

/** Keys whose values never reach a log line, at any depth of a logged object (compared lower-cased). */
const SECRET_KEYS = new Set([
  'password', 'newpassword', 'passwordhash', 'token', 'secret', 'apikey', 'accesstoken', 'storefronttoken',
  'authorization', 'cookie', 'set-cookie', 'x-storefront-token', 'stripe-signature', 'x-webhook-signature',
  'smtppassword', 'smtppasswordencrypted', 'webhooksecret', 'clientsecret', 'card', 'tokenhash'
]);

const CENSOR = '[redacted]';

const EMAIL_ADDRESS = /[^\s<>"'(),;:[\]]+@[^\s<>"'(),;:[\]]+\.[^\s<>"'(),;:[\]]+/g;

/** Error messages (SMTP replies above all) name recipients; logs keep the reason, not the address. */
export const scrubEmailAddresses = (message: string) => message.replace(EMAIL_ADDRESS, '[email]');

/** A copy of `value` with every secret-named key censored, however deep it sits. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Error) return { message: value.message, name: value.name };
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (SECRET_KEYS.has(key.toLowerCase())) out[key] = CENSOR;
    else if (key === 'err' && item && typeof item === 'object' && typeof (item as { message?: unknown }).message === 'string') {
      const err = redactSecrets(item, depth + 1) as Record<string, unknown>;
      out[key] = { ...err, message: scrubEmailAddresses(err.message as string) };
    } else out[key] = redactSecrets(item, depth + 1);
  }
  return out;
}

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'shopwright' },
    formatters: { log: (object) => redactSecrets(object) as Record<string, unknown> }
  });
}

export type { Logger };
