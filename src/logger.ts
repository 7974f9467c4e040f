import { pino, type Logger } from 'pino';

/** Keys whose values never reach a log line, wherever they appear in a logged object. */
const REDACTED_KEYS = [
  'password', 'newPassword', 'token', 'secret', 'apiKey', 'accessToken', 'storefrontToken',
  'authorization', 'cookie', 'x-storefront-token', 'stripe-signature', 'x-webhook-signature',
  'smtpPassword', 'webhookSecret', 'clientSecret', 'card'
];

export function createLogger(level: string): Logger {
  const paths = REDACTED_KEYS.flatMap((key) => [`${key}`, `*.${key}`, `*.*.${key}`, `headers["${key}"]`]);
  return pino({
    level,
    redact: { paths, censor: '[redacted]' },
    base: { service: 'shopwright' }
  });
}

export type { Logger };
