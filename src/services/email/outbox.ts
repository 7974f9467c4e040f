import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { tableExists } from '../../db/schema-probe.js';
import { AppError, notFound, upstreamFailed } from '../../errors.js';
import { BUILT_IN_TEMPLATES, BUILT_IN_TEMPLATE_KEYS, renderTemplate, sampleData, unknownTemplateKey, type EmailTemplate } from './templates.js';
import { assertEmailSecretsReadable, resolveSender } from './settings.js';
import { isSubscribed } from '../customers/unsubscribe.js';

export const SEND_EMAIL_JOB = 'send-email';

export interface SendEmailPayload {
  emailLogId: string;
  storeId: string | null;
  to: string;
  templateKey: string | null;
  /** Either a template key with its data, or content already rendered (campaigns render per recipient). */
  data?: Record<string, unknown>;
  content?: { subject: string; html: string; text: string };
  headers?: Record<string, string>;
  /** Marketing email: sent only if this customer is still subscribed when the job runs. */
  marketingCustomerId?: string;
}

export interface EnqueueEmailInput {
  storeId: string | null;
  to: string;
  templateKey?: string | null;
  data?: Record<string, unknown>;
  content?: { subject: string; html: string; text: string };
  headers?: Record<string, string>;
  marketingCustomerId?: string;
}

/**
 * Logs the message as queued and hands it to the email queue. The log row id is the job id, so a
 * repeated enqueue or a retried job never sends twice.
 */
export async function enqueueEmail(ctx: AppContext, input: EnqueueEmailInput, jobOptions: { attempts?: number } = {}) {
  const emailLogId = randomUUID();
  await ctx.db('emailLog').insert({
    id: emailLogId,
    storeId: input.storeId,
    toEmail: input.to,
    templateKey: input.templateKey ?? null,
    subject: input.content?.subject ?? null,
    status: 'queued'
  });
  const payload: SendEmailPayload = {
    emailLogId,
    storeId: input.storeId,
    to: input.to,
    templateKey: input.templateKey ?? null,
    data: input.data,
    content: input.content,
    headers: input.headers,
    ...(input.marketingCustomerId ? { marketingCustomerId: input.marketingCustomerId } : {})
  };
  const job = await ctx.queues.add('email', SEND_EMAIL_JOB, payload, { jobId: emailLogId, ...jobOptions });
  return { emailLogId, job };
}

async function templateFor(ctx: AppContext, storeId: string | null, key: string): Promise<EmailTemplate | null> {
  return BUILT_IN_TEMPLATES[key] ?? (storeId ? await findStoreTemplate(ctx, storeId, key) : null);
}

/** A store's own marketing template by key, once the marketing module has created its table. */
async function findStoreTemplate(ctx: AppContext, storeId: string, key: string): Promise<EmailTemplate | null> {
  if (!(await tableExists(ctx.db, 'marketing_templates'))) return null;
  const row = await ctx.db('marketingTemplates').where({ storeId, key }).first('subject', 'html', 'text');
  return row ? { subject: row.subject, html: row.html ?? '', text: row.text ?? '' } : null;
}

async function storeTemplateKeys(ctx: AppContext, storeId: string): Promise<string[]> {
  if (!(await tableExists(ctx.db, 'marketing_templates'))) return [];
  return (await ctx.db('marketingTemplates').where({ storeId }).pluck('key')) as string[];
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
    content = await renderTemplate(template, payload.data ?? {});
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

const TEST_SEND_TIMEOUT_MS = 30_000;

/** Test sends go through the same queue as every email, and the route waits for the outcome. */
async function sendAndWait(ctx: AppContext, input: EnqueueEmailInput): Promise<DeliveryResult> {
  if (input.storeId) await assertEmailSecretsReadable(ctx, input.storeId);
  const events = await ctx.queues.eventsFor('email');
  const { job } = await enqueueEmail(ctx, input, { attempts: 1 });
  try {
    return (await job.waitUntilFinished(events, TEST_SEND_TIMEOUT_MS)) as DeliveryResult;
  } catch (error) {
    const message = (error as Error).message;
    throw upstreamFailed(`The email could not be sent: ${message}`, [{ path: 'smtp', message }]);
  }
}

async function storeName(ctx: AppContext, storeId: string): Promise<string> {
  const store = await ctx.db('stores').where({ id: storeId }).first('name');
  if (!store) throw notFound('Store');
  return store.name;
}

export async function sendTestEmail(ctx: AppContext, storeId: string, toEmail: string) {
  const name = await storeName(ctx, storeId);
  const result = await sendAndWait(ctx, {
    storeId,
    to: toEmail,
    templateKey: null,
    content: {
      subject: `Test email from ${name}`,
      text: `This is a test email from ${name} on Shopwright. Your email settings work.`,
      html: `<p>This is a test email from <strong>${name.replace(/[<>&"]/g, '')}</strong> on Shopwright. Your email settings work.</p>`
    }
  });
  return { messageId: result.messageId, accepted: result.accepted };
}

export async function sendTestTemplateEmail(ctx: AppContext, storeId: string, toEmail: string, templateKey: string) {
  const name = await storeName(ctx, storeId);
  if (!(await templateFor(ctx, storeId, templateKey))) {
    throw unknownTemplateKey([...BUILT_IN_TEMPLATE_KEYS, ...(await storeTemplateKeys(ctx, storeId))]);
  }
  const result = await sendAndWait(ctx, { storeId, to: toEmail, templateKey, data: sampleData(name, ctx.config.appUrl) });
  return { templateKey, messageId: result.messageId, accepted: result.accepted };
}
