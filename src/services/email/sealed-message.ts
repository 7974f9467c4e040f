import type { AppContext } from '../../context.js';
import { decryptSecret, encryptSecret } from '../../platform/secrets.js';

/** What an email says beyond ids: template data or rendered content, and its headers. */
export interface EmailMessageParts {
  data?: Record<string, unknown> | undefined;
  content?: { subject: string; html: string; text: string } | undefined;
  headers?: Record<string, string> | undefined;
}

/**
 * An email job carries ids in the clear (log row, store, template key, customer) and nothing
 * personal: the recipient is read from its email_log row, and the rest (names, order details,
 * unsubscribe and invite links) travels encrypted with ENCRYPTION_KEY through the outbox and the
 * queue, so neither Redis, the queue dashboard nor the outbox table shows it.
 */
export function sealEmailMessage(ctx: AppContext, parts: EmailMessageParts): string | undefined {
  if (!parts.data && !parts.content && !parts.headers) return undefined;
  return encryptSecret(JSON.stringify({ data: parts.data, content: parts.content, headers: parts.headers }), ctx.config.encryptionKey);
}

export function openEmailMessage(ctx: AppContext, sealed: string): EmailMessageParts {
  return JSON.parse(decryptSecret(sealed, ctx.config.encryptionKey)) as EmailMessageParts;
}
