import { randomUUID } from 'node:crypto';
import type { Sql } from '../../db/transaction.js';
import type { AppContext } from '../../context.js';
import { isBackendDown, notFound, serviceUnavailable, unprocessable, upstreamFailed } from '../../errors.js';
import { sendEmailJob, type SendEmailPayload } from '../../jobs/send-email.js';
import { jobInsert, withdrawJob } from '../../platform/outbox/enqueue.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { withinTime } from '../../time-limit.js';
import { runStatements } from '../../db/prepared-statements.js';
import { waitForJob } from '../../platform/outbox/wait-for-job.js';
import { storeTemplateKeys } from '../../platform/modules/registry.js';
import { isTemplateFailure, templateFor, type DeliveryResult } from './delivery.js';
import { BUILT_IN_TEMPLATE_KEYS, sampleData, unknownTemplateKey } from './templates.js';
import { assertEmailSecretsReadable } from './settings.js';
import { sealEmailMessage } from './sealed-message.js';

export interface EnqueueEmailInput {
  storeId: string | null;
  to: string;
  templateKey?: string | null;
  data?: Record<string, unknown>;
  content?: { subject: string; html: string; text: string };
  headers?: Record<string, string>;
  marketingCustomerId?: string;
}

export interface EnqueueEmailOptions {
  /** The transaction of the change that causes the email: the email exists exactly when it commits. */
  trx?: Sql;
  attempts?: number;
}

const EMAIL_LOG_INSERT = `insert into email_log (id, store_id, to_email, template_key, subject, status)
  values (:logId, :logStoreId, :logTo, :logTemplateKey, :logSubject, 'queued')`;

/**
 * Logs the message as queued and records the send job in the outbox, in one statement within the
 * caller's transaction when given. The log row id is the job id, so a relay repeat or a retried job never
 * sends twice.
 */
export async function enqueueEmail(ctx: AppContext, input: EnqueueEmailInput, options: EnqueueEmailOptions = {}) {
  const { call, ...ids } = emailInsert(ctx, input, options);
  await runStatements(options.trx ?? ctx.db, [call]);
  return ids;
}

/** enqueueEmail as a statement for the caller to run with others (runStatements) in its transaction. */
export function emailInsert(ctx: AppContext, input: EnqueueEmailInput, options: Pick<EnqueueEmailOptions, 'attempts'> = {}) {
  const emailLogId = randomUUID();
  const logRow = {
    sql: EMAIL_LOG_INSERT,
    values: { logId: emailLogId, logStoreId: input.storeId, logTo: input.to, logTemplateKey: input.templateKey ?? null, logSubject: input.content?.subject ?? null }
  };
  // Ids in the clear, the rest sealed (sealed-message.ts); the recipient is the log row's.
  const sealed = sealEmailMessage(ctx, input);
  const payload: SendEmailPayload = {
    emailLogId,
    storeId: input.storeId,
    templateKey: input.templateKey ?? null,
    ...(sealed ? { sealed } : {}),
    ...(input.marketingCustomerId ? { marketingCustomerId: input.marketingCustomerId } : {})
  };
  // The log row and the job intent in one statement: atomic without a transaction of their own.
  const { call, outboxId } = jobInsert(sendEmailJob, payload, { jobId: emailLogId, attempts: options.attempts, together: logRow });
  return { call, emailLogId, jobId: emailLogId, outboxId };
}

/**
 * A test send's two waits, bounded together below hapi's 25 s route timeout so that the operator
 * hears this route's answer, not hapi's: the relay's move into the queue, then the worker's outcome.
 */
const TEST_SEND_RELAY_WAIT_MS = 5_000;
const TEST_SEND_OUTCOME_WAIT_MS = 15_000;
/** A relay that failed lets go of the row at once; one that hangs is not waited for longer. */
const WITHDRAW_LOCK_WAIT_MS = 1_000;

/**
 * Takes a test send back: its log row says `withdrawn` (delivery skips such a row whenever its job
 * runs, so a relay that was stuck and moves the job later sends nothing), and its job intent leaves
 * the outbox unless a relay still holds it after a short wait. False when the email already went or failed.
 */
async function withdrawEmail(ctx: AppContext, emailLogId: string, jobId: string): Promise<boolean> {
  const marked = await ctx.db('emailLog')
    .where({ id: emailLogId, status: 'queued' })
    .update({ status: 'withdrawn', error: 'withdrawn: the job queue did not take it in time' });
  try {
    await withTransaction(ctx, async (trx) => {
      await trx.raw(`set local lock_timeout = ${WITHDRAW_LOCK_WAIT_MS}`);
      await withdrawJob(trx, jobId);
    });
  } catch (error) {
    // lock_not_available: a relay stuck on the queue backend holds the row; the log row's mark suffices.
    if ((error as { code?: string }).code !== '55P03') throw error;
  }
  return marked > 0;
}

/**
 * Test sends go through the same outbox and queue as every email, and the route waits for the
 * outcome. The relay is asked to move the row at once; if Redis refuses or does not answer in time,
 * or no worker reports in time, the send is withdrawn (the operator is told to retry) rather than
 * delivered later behind their back.
 */
async function sendAndWait(ctx: AppContext, input: EnqueueEmailInput): Promise<{ messageId: string; accepted: string[] }> {
  if (input.storeId) await assertEmailSecretsReadable(ctx, input.storeId);
  const events = await withinTime(ctx.queues.eventsFor('email'), TEST_SEND_RELAY_WAIT_MS, 'the queue connection').catch(() => {
    throw serviceUnavailable('The job queue is unavailable');
  });
  const { emailLogId, jobId } = await enqueueEmail(ctx, input, { attempts: 1 });
  const outcome = waitForJob<DeliveryResult>(events, jobId, TEST_SEND_OUTCOME_WAIT_MS);
  try {
    await withinTime(ctx.outbox.drain(), TEST_SEND_RELAY_WAIT_MS, 'the outbox relay');
  } catch (error) {
    outcome.cancel();
    if ((await withdrawEmail(ctx, emailLogId, jobId)) || isBackendDown(error)) throw serviceUnavailable('The job queue is unavailable');
  }
  try {
    const result = await outcome.result;
    // The job's result names no one (the dashboard shows it); the one recipient is the caller's.
    return { messageId: result.messageId, accepted: result.acceptedCount > 0 ? [input.to] : [] };
  } catch (error) {
    const message = (error as Error).message;
    if (isTemplateFailure(message)) throw unprocessable('template_invalid', message, [{ path: 'templateKey', message }]);
    if (outcome.timedOut() && (await withdrawEmail(ctx, emailLogId, jobId))) throw serviceUnavailable('No email worker took the send in time');
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
