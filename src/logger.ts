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

/** JSON lines by default; `pretty` (LOG_FORMAT=pretty) renders them through pino-pretty for local runs. */
export function createLogger(level: string, format: 'json' | 'pretty' = 'json'): Logger {
  return pino({
    level,
    base: { service: 'shopwright' },
    formatters: { log: (object) => redactSecrets(object) as Record<string, unknown> },
    ...(format === 'pretty' ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' } } } : {})
  });
}

/**
 * knex's own warnings and errors (an "Acquire connection error" with its stack, say) as one log line
 * each, instead of console output spread over many lines.
 */
export function knexLog(log: Logger) {
  const line = (level: 'warn' | 'error' | 'debug') => (message: unknown) => {
    const text = message instanceof Error ? message.message : typeof message === 'string' ? message : JSON.stringify(message);
    log[level]({ component: 'knex', err: { message: text.split('\n')[0] } }, `knex ${level}`);
  };
  return { warn: line('warn'), error: line('error'), deprecate: line('warn'), debug: line('debug') };
}

export type { Logger };
