import type { AppContext } from '../../context.js';
import { findStoreTemplate } from '../modules/registry.js';
import { AppError } from '../../errors.js';
import { decryptSecret } from '../secrets.js';
import { BUILT_IN_TEMPLATES, renderTemplate, type EmailTemplate } from './templates.js';
import { resolveSender } from './settings.js';
import { isSubscribed } from '../customers/unsubscribe.js';

export interface SendEmailPayload {
  emailLogId: string;
  storeId: string | null;
  to: string;
  templateKey: string | null;
  /** Either a template key with its data, or content already rendered (campaigns render per recipient). */
  data?: Record<string, unknown>;
  /** `data` encrypted with ENCRYPTION_KEY, for mail that carries a secret link (invites). */
  sealedData?: string;
  content?: { subject: string; html: string; text: string };
  headers?: Record<string, string>;
  /** Marketing email: sent only if this customer is still subscribed when the job runs. */
  marketingCustomerId?: string;
}

/** The store's own template for the key (an override, or a key of its own), else the built-in one. */
export async function templateFor(ctx: AppContext, storeId: string | null, key: string): Promise<EmailTemplate | null> {
  return (storeId ? await findStoreTemplate(ctx, storeId, key) : null) ?? BUILT_IN_TEMPLATES[key] ?? null;
}

const TEMPLATE_FAILURE = /^template "[^"]*" cannot be rendered: /;

/** The email log's (and the failed job's) message for an email its template could not render. */
export const templateFailure = (key: string, reason: string) => `template "${key}" cannot be rendered: ${reason}`;

/** A failed send's message says the template was at fault (see templateFailure). */
export const isTemplateFailure = (message: string) => TEMPLATE_FAILURE.test(message);

function templateData(ctx: AppContext, payload: SendEmailPayload): Record<string, unknown> {
  if (payload.sealedData) return JSON.parse(decryptSecret(payload.sealedData, ctx.config.encryptionKey)) as Record<string, unknown>;
  return payload.data ?? {};
}

export interface DeliveryResult {
  messageId: string;
  accepted: string[];
}

/** The email job's work: render, send through the store's (or platform's) mailer, record the outcome. */
export async function deliverEmail(ctx: AppContext, payload: SendEmailPayload): Promise<DeliveryResult> {
  const logged = await ctx.db('emailLog').where({ id: payload.emailLogId }).first('status', 'providerMessageId');
  if (logged?.status === 'sent') return { messageId: logged.providerMessageId, accepted: [payload.to] };
  if (payload.marketingCustomerId && payload.storeId && !(await isSubscribed(ctx, payload.storeId, payload.marketingCustomerId))) {
    await ctx.db('emailLog').where({ id: payload.emailLogId }).update({ status: 'failed', error: 'skipped: the recipient is not subscribed' });
    return { messageId: '', accepted: [] };
  }

  let content = payload.content;
  if (!content) {
    const template = payload.templateKey ? await templateFor(ctx, payload.storeId, payload.templateKey) : null;
    if (!template) throw new AppError(422, 'validation_failed', `Unknown template ${payload.templateKey}`);
    const data = templateData(ctx, payload);
    try {
      content = renderTemplate(template, data);
    } catch (error) {
      // The template's fault (syntax, a refused tag, a limit): the same on every retry, so this email fails now.
      const reason = templateFailure(payload.templateKey!, (error as Error).message);
      await ctx.db('emailLog').where({ id: payload.emailLogId }).update({ status: 'failed', error: reason.slice(0, 2000) });
      throw new AppError(422, 'template_invalid', reason);
    }
  }
  const sender = await resolveSender(ctx, payload.storeId);
  try {
    const info = await sender.mailer.transporter.sendMail({
      from: sender.from,
      replyTo: sender.replyTo,
      to: payload.to,
      subject: content.subject,
      html: content.html,
      text: content.text,
      headers: payload.headers
    });
    if (sender.mailer.persist && Buffer.isBuffer(info.message)) await sender.mailer.persist(info.messageId, info.message);
    const accepted = (info.accepted ?? [payload.to]).map(String);
    await ctx.db('emailLog').where({ id: payload.emailLogId }).update({
      status: 'sent',
      subject: content.subject,
      provider: sender.mailer.provider,
      providerMessageId: info.messageId,
      sentAt: ctx.db.fn.now(),
      error: null
    });
    return { messageId: info.messageId, accepted: accepted.length ? accepted : [payload.to] };
  } catch (error) {
    await ctx.db('emailLog').where({ id: payload.emailLogId }).update({
      status: 'failed',
      subject: content.subject,
      provider: sender.mailer.provider,
      error: (error as Error).message.slice(0, 2000)
    });
    throw error;
  } finally {
    if (sender.mailer.provider === 'smtp') sender.mailer.transporter.close();
  }
}
