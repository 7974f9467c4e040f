import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';
import type { SendEmailPayload } from '../../jobs/send-email.js';
import { findStoreTemplate } from '../modules/registry.js';
import { AppError } from '../../errors.js';
import { decryptSecret } from '../secrets.js';
import { BUILT_IN_TEMPLATES, renderTemplate, type EmailTemplate } from './templates.js';
import { resolveSender } from './settings.js';
import { isSubscribed } from '../customers/unsubscribe.js';

/** An email about to be delivered by the caller itself (not through the outbox): its log row, in the caller's transaction. */
export async function logQueuedEmail(trx: Knex.Transaction, row: { id: string; storeId: string | null; to: string; templateKey: string }): Promise<void> {
  await trx('emailLog').insert({ id: row.id, storeId: row.storeId, toEmail: row.to, templateKey: row.templateKey, status: 'queued' });
}

/** The store's own template for the key (an override, or a key of its own), else the built-in one. */
export async function templateFor(ctx: AppContext, storeId: string | null, key: string): Promise<EmailTemplate | null> {
  return (storeId ? await findStoreTemplate(ctx, storeId, key) : null) ?? BUILT_IN_TEMPLATES[key] ?? null;
}

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
    content = await renderTemplate(template, templateData(ctx, payload));
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
