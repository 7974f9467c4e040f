import type { AppContext } from '../../context.js';
import type { SendEmailPayload } from '../../jobs/send-email.js';
import { findStoreTemplate, marketingConsent } from '../../platform/modules/registry.js';
import { AppError } from '../../errors.js';
import { decryptSecret } from '../../platform/secrets.js';
import { BUILT_IN_TEMPLATES, renderTemplate, type EmailTemplate } from './templates.js';
import { resolveSender } from './settings.js';
import { openEmailMessage, type EmailMessageParts } from './sealed-message.js';
import type { Transaction } from '../../db/transaction.js';

/** An email about to be delivered by the caller itself (not through the outbox): its log row, in the caller's transaction. */
export async function logQueuedEmail(trx: Transaction, row: { id: string; storeId: string | null; to: string; templateKey: string }): Promise<void> {
  await trx('emailLog').insert({ id: row.id, storeId: row.storeId, toEmail: row.to, templateKey: row.templateKey, status: 'queued' });
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

function messageParts(ctx: AppContext, payload: SendEmailPayload): EmailMessageParts {
  if (payload.sealed) return openEmailMessage(ctx, payload.sealed);
  const data = payload.sealedData ? (JSON.parse(decryptSecret(payload.sealedData, ctx.config.encryptionKey)) as Record<string, unknown>) : payload.data;
  return { data, content: payload.content, headers: payload.headers };
}

/** The job's result holds no address: how many recipients the server accepted. */
export interface DeliveryResult {
  messageId: string;
  acceptedCount: number;
}

/** The email job's work: render, send through the store's (or platform's) mailer, record the outcome. */
export async function deliverEmail(ctx: AppContext, payload: SendEmailPayload): Promise<DeliveryResult> {
  const logged = await ctx.db('emailLog').where({ id: payload.emailLogId }).first('status', 'providerMessageId', 'toEmail');
  if (logged?.status === 'sent') return { messageId: logged.providerMessageId, acceptedCount: 1 };
  // A test send the route took back (its queue did not answer in time) is never sent later.
  if (logged?.status === 'withdrawn') return { messageId: '', acceptedCount: 0 };
  const to = (logged?.toEmail as string | undefined) ?? payload.to;
  if (!to) throw new AppError(422, 'validation_failed', `Email ${payload.emailLogId} has no log row to say where it goes`);
  if (payload.marketingCustomerId && payload.storeId && !(await marketingConsent(ctx, payload.storeId, payload.marketingCustomerId))) {
    await ctx.db('emailLog').where({ id: payload.emailLogId }).update({ status: 'failed', error: 'skipped: the recipient is not subscribed' });
    return { messageId: '', acceptedCount: 0 };
  }

  const message = messageParts(ctx, payload);
  const order = message.data?.order as Record<string, unknown> | undefined;
  if (payload.orderNumber && order) message.data = { ...message.data, order: { ...order, number: payload.orderNumber } };
  let content = message.content;
  if (!content) {
    const template = payload.templateKey ? await templateFor(ctx, payload.storeId, payload.templateKey) : null;
    if (!template) throw new AppError(422, 'validation_failed', `Unknown template ${payload.templateKey}`);
        try {
      content = renderTemplate(template, message.data ?? {});
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
      to,
      subject: content.subject,
      html: content.html,
      text: content.text,
      headers: message.headers
    });
    if (sender.mailer.persist && Buffer.isBuffer(info.message)) await sender.mailer.persist(info.messageId, info.message);
    const acceptedCount = info.accepted ? info.accepted.length : 1;
    await ctx.db('emailLog').where({ id: payload.emailLogId }).update({
      status: 'sent',
      subject: content.subject,
      provider: sender.mailer.provider,
      providerMessageId: info.messageId,
      sentAt: ctx.db.fn.now(),
      error: null
    });
    return { messageId: info.messageId, acceptedCount };
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
