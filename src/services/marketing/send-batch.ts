import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../../context.js';
import { listUnsubscribeHeadersFor, unsubscribeUrlFor } from '../customers/index.js';
import { clickSigningKey, trackLinks, trackTextLinks } from './clicks.js';
import { compileContent, renderCompiledSync, type CompiledContent } from '../../platform/liquid/email-content.js';
import { reserveSendSlots, storeSendRate } from './send-rate.js';
import { campaignSender, type CampaignSender } from '../email/index.js';
import { batchRange, completeBatch } from './start.js';
import { classifySmtpError } from './smtp-errors.js';
import { buildCampaignMessage } from './mime.js';
import { RecipientClaims, type ClaimedRecipient } from './recipient-claims.js';
import { recordSent, writeSent } from './sent-records.js';
import { TemplateProblem } from '../../platform/liquid/sandboxed-engine.js';
import { failCampaignContent } from './content-failure.js';
import { withTransaction } from '../../platform/with-transaction.js';

/**
 * Recipients claimed (pending → sending) and sent together; their outcomes are recorded before the
 * next claim. About a quarter second of sending at the store's rate, so an unsubscribe is honoured
 * within that time, and at most 50.
 */
const chunkSize = (rate: number) => Math.max(1, Math.min(50, Math.round(rate / 4)));

/** SMTP tries per recipient for temporary failures (the batch job has more attempts than this). */
const RECIPIENT_MAX_ATTEMPTS = 5;

/** Thrown when recipients are left for a later attempt (transient SMTP errors): BullMQ retries with backoff. */
export class TransientBatchError extends Error {}

interface BatchState {
  ctx: AppContext;
  campaign: { id: string; storeId: string; type: string; context: Record<string, unknown> };
  storeName: string;
  compiled: CompiledContent;
  sender: CampaignSender;
  rate: number;
  clickKey: Buffer;
  /** Set when the content went over a sandbox limit: nobody else in the batch is rendered. */
  contentFailure: string | null;
}

type BatchCampaign = BatchState['campaign'] & { subject: string; html: string; text: string };

/**
 * A batch job: claims chunks of its recipients, skips those who unsubscribed or got suppressed
 * since the snapshot, renders (templates compiled once per batch) and sends over the pooled
 * transport at the store's shared rate, recording each accepted message at once and the other
 * outcomes before taking the next chunk. Recipients another run of this batch left claimed are
 * waited for: a live run finishes them; a dead run's claims expire and go back to pending (see
 * recipient-claims), so the batch is done only when none is left in flight.
 */
export async function sendCampaignBatch(ctx: AppContext, campaignId: string, batch: number, opts: { finalAttempt?: boolean; signal?: AbortSignal } = {}) {
  const campaign = await ctx
    .db('campaigns')
    .comment('cross-store: campaign job by id')
    .where({ id: campaignId })
    .first('id', 'storeId', 'type', 'status', 'subject', 'html', 'text', 'context', 'batchesTotal');
  if (!campaign || !campaign.batchesTotal) return { sent: 0, stopped: campaign?.status ?? 'missing' };
  const range = batchRange(batch, campaign.batchesTotal);
  let compiled: CompiledContent;
  try {
    compiled = compileContent(campaign);
  } catch (error) {
    await failCampaignContent(ctx, campaign.storeId, campaignId, `content cannot be rendered: ${(error as Error).message}`);
    return { sent: 0, stopped: 'failed' };
  }
  const claims = new RecipientClaims(ctx, campaign.storeId, campaignId, range);
  try {
    return await runBatch(ctx, campaign, compiled, batch, range, claims, opts);
  } finally {
    claims.stop();
  }
}

async function runBatch(
  ctx: AppContext,
  campaign: BatchCampaign,
  compiled: CompiledContent,
  batch: number,
  range: [string, string | null],
  claims: RecipientClaims,
  opts: { finalAttempt?: boolean; signal?: AbortSignal }
) {
  let state: BatchState | null = null;
  const deferred: string[] = [];
  let sent = 0;
  for (;;) {
    const status = (await ctx.db('campaigns').where({ storeId: campaign.storeId, id: campaign.id }).first('status'))?.status;
    const sending = status === 'sending';
    // Worker shutting down: stop at a chunk boundary; the retried job resumes with what is pending.
    if (opts.signal?.aborted && !opts.finalAttempt) throw new TransientBatchError('worker shutting down; the batch resumes on another attempt');
    if (sending) {
      state ??= await batchState(ctx, campaign, compiled);
      const claimed = await claims.claimChunk(campaign.storeId, deferred, chunkSize(state.rate));
      if (claimed.length) {
        const outcome = await sendChunk(state, claims, claimed.filter((r) => r.status === 'sending'));
        sent += outcome.sent;
        deferred.push(...outcome.deferred);
        if (state.contentFailure) {
          await failCampaignContent(ctx, campaign.storeId, campaign.id, state.contentFailure);
          return { sent, stopped: 'failed' };
        }
        if (outcome.claimLapsed) throw new TransientBatchError('the claim on its recipients could not be renewed in time; the rest are sent on another attempt');
        continue;
      }
    }
    // Nothing left to claim, or the campaign stopped: settle what other runs of this batch hold.
    const left = await claims.settleAbandoned(sending ? 'pending' : 'cancelled');
    if (left.settled) continue;
    if (left.nextExpiryMs === null) {
      if (!sending) return { sent, stopped: status };
      break;
    }
    await sleep(Math.min(left.nextExpiryMs + 10, 1_000));
  }
  if (deferred.length) {
    if (!opts.finalAttempt) throw new TransientBatchError(`${deferred.length} recipient(s) hit a temporary SMTP error; retrying later`);
    const [from, to] = range;
    const query = ctx.db('campaignRecipients').where({ storeId: campaign.storeId, campaignId: campaign.id, status: 'pending' }).where('customerId', '>=', from);
    await (to ? query.where('customerId', '<', to) : query).update({ status: 'failed' });
  }
  await completeBatch(ctx, campaign.storeId, campaign.id, batch);
  return { sent };
}

async function batchState(ctx: AppContext, campaign: BatchCampaign, compiled: CompiledContent): Promise<BatchState> {
  const store = await ctx.db('stores').where({ id: campaign.storeId }).first('name');
  return {
    ctx,
    campaign,
    storeName: store?.name ?? '',
    compiled,
    contentFailure: null,
    sender: await campaignSender(ctx, campaign.storeId),
    rate: await storeSendRate(ctx, campaign.storeId),
    clickKey: clickSigningKey(ctx)
  };
}

/**
 * A batch job that failed for good (no attempt left): what it had not sent is failed with the
 * reason and the batch counts as done, so the campaign still ends with exact counts.
 */
export async function abandonBatch(ctx: AppContext, campaignId: string, batch: number, reason: string): Promise<void> {
  const campaign = await ctx.db('campaigns').comment('cross-store: campaign job by id').where({ id: campaignId }).first('storeId', 'status', 'batchesTotal');
  if (!campaign || campaign.status !== 'sending') return;
  const [from, to] = batchRange(batch, campaign.batchesTotal);
  const query = ctx.db('campaignRecipients').where({ storeId: campaign.storeId, campaignId }).where('customerId', '>=', from).whereIn('status', ['pending', 'sending']);
  await (to ? query.where('customerId', '<', to) : query).update({ status: 'failed', error: `batch gave up: ${reason}`.slice(0, 1000) });
  await completeBatch(ctx, campaign.storeId, campaignId, batch);
}

function renderFor(state: BatchState, recipient: ClaimedRecipient) {
  const { ctx, campaign } = state;
  const unsubscribeUrl = unsubscribeUrlFor(ctx, { id: recipient.customerId }, campaign.id);
  const data = {
    ...campaign.context,
    store: { name: state.storeName },
    customer: { id: recipient.customerId, email: recipient.email, firstName: recipient.firstName ?? '', lastName: recipient.lastName ?? '' },
    campaign: { id: campaign.id, type: campaign.type },
    unsubscribeUrl
  };
  const rendered = renderCompiledSync(state.compiled, data);
  let html = rendered.html ? trackLinks(ctx, state.clickKey, rendered.html, campaign.id, recipient.customerId, unsubscribeUrl) : '';
  let text = trackTextLinks(ctx, state.clickKey, rendered.text, campaign.id, recipient.customerId, unsubscribeUrl);
  if (html && !html.includes(unsubscribeUrl.replace(/&/g, '&amp;')) && !html.includes(unsubscribeUrl)) {
    const footer = `<p style="color:#7b8794;font-size:12px">You receive this email from ${escapeHtml(state.storeName)}. <a href="${unsubscribeUrl}">Unsubscribe</a></p>`;
    html = html.includes('</body>') ? html.replace('</body>', `${footer}</body>`) : `${html}${footer}`;
  }
  if (!text.includes(unsubscribeUrl)) text = `${text}\n\n--\nUnsubscribe: ${unsubscribeUrl}\n`;
  return { subject: rendered.subject, html: html || undefined, text, headers: listUnsubscribeHeadersFor(unsubscribeUrl) };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

interface Outcomes {
  /** Accepted by the SMTP server (each recorded right then). */
  sent: string[];
  /** Accepted, but the immediate record failed: written again with the chunk. */
  unrecorded: string[];
  failed: Array<{ id: string; email: string; error: string; permanent: boolean }>;
  deferred: Array<{ id: string; error: string }>;
  /** Claimed, but the campaign stopped (cancelled) before their turn. */
  unsent: string[];
  /** Claimed, but this run's claim could not be renewed before their turn: given back to pending. */
  released: string[];
}

/** Paced sends wake at most this often; each wake re-reads the campaign's status once. */
const MIN_WAKE_MS = 10;

const stillSending = async (ctx: AppContext, storeId: string, campaignId: string) =>
  (await ctx.db('campaigns').where({ storeId, id: campaignId }).first('status'))?.status === 'sending';

/**
 * Sends a claimed chunk at its reserved slots. After every wait the campaign's status is read
 * again, so a cancel answered during the wait stops what has not gone out yet (those end
 * `cancelled`); messages due together share that read. A send starts only while this run's claim
 * holds (see recipient-claims).
 */
async function sendChunk(state: BatchState, claims: RecipientClaims, recipients: ClaimedRecipient[]) {
  const { ctx, campaign } = state;
  const outcomes: Outcomes = { sent: [], unrecorded: [], failed: [], deferred: [], unsent: [], released: [] };
  if (recipients.length) {
    const slots = await reserveSendSlots(ctx, campaign.storeId, recipients.length, state.rate);
    const sends: Array<Promise<void>> = [];
    let next = 0;
    let lastWake = -Infinity;
    let stopped = false;
    while (next < recipients.length) {
      const due = Math.max(slots[next]!, lastWake + MIN_WAKE_MS);
      if (due > Date.now()) {
        await sleep(due - Date.now());
        lastWake = Date.now();
        if (!(await stillSending(ctx, campaign.storeId, campaign.id))) {
          stopped = true;
          break;
        }
      }
      if (!claims.canStartSend()) break;
      const now = Date.now();
      while (next < recipients.length && slots[next]! <= now) sends.push(sendOne(state, recipients[next++]!, outcomes));
    }
    await Promise.all(sends);
    const rest = recipients.slice(next).map((r) => r.customerId);
    if (stopped) outcomes.unsent.push(...rest);
    else outcomes.released.push(...rest);
  }
  await recordOutcomes(ctx, campaign, claims, outcomes);
  return { sent: outcomes.sent.length, deferred: outcomes.deferred.map((d) => d.id), claimLapsed: outcomes.released.length > 0 };
}

async function sendOne(state: BatchState, recipient: ClaimedRecipient, outcomes: Outcomes) {
  const { ctx, campaign, sender } = state;
  const contentFailed = (reason: string) => outcomes.failed.push({ id: recipient.customerId, email: recipient.email, error: reason, permanent: false });
  if (state.contentFailure) return void contentFailed(state.contentFailure);
  let message;
  try {
    message = renderFor(state, recipient);
  } catch (error) {
    if (error instanceof TemplateProblem) {
      state.contentFailure = `content cannot be rendered: ${error.message}`;
      return void contentFailed(state.contentFailure);
    }
    outcomes.failed.push({ id: recipient.customerId, email: recipient.email, error: `render failed: ${(error as Error).message}`, permanent: false });
    return;
  }
  try {
    const messageId = `<campaign-${campaign.id}-${recipient.customerId}@shopwright>`;
    const { raw, envelope } = buildCampaignMessage({
      from: sender.from,
      to: recipient.email,
      replyTo: sender.replyTo,
      subject: message.subject,
      html: message.html,
      text: message.text,
      headers: { ...message.headers, 'X-Campaign-Id': campaign.id },
      messageId
    });
    const info = await sender.transporter.sendMail({ envelope, raw });
    if (sender.persist && Buffer.isBuffer(info.message)) await sender.persist(messageId.slice(1, -1), info.message);
  } catch (error) {
    const kind = classifySmtpError(error);
    const text = String((error as Error).message ?? error).slice(0, 1000);
    if (kind === 'transient') outcomes.deferred.push({ id: recipient.customerId, error: text });
    else outcomes.failed.push({ id: recipient.customerId, email: recipient.email, error: text, permanent: kind === 'permanent' });
    return;
  }
  // Accepted: recorded before this send counts as done, so a crash from here on never sends it again.
  outcomes.sent.push(recipient.customerId);
  try {
    await recordSent(ctx, campaign.storeId, campaign.id, recipient.customerId);
  } catch {
    outcomes.unrecorded.push(recipient.customerId);
  }
}

/**
 * One statement per outcome kind. Apart from `sent` (true whoever holds the row now), each applies
 * only while the row is still this run's claim. A permanent failure also suppresses the address.
 */
async function recordOutcomes(ctx: AppContext, campaign: { id: string; storeId: string }, claims: RecipientClaims, outcomes: Outcomes) {
  const { unrecorded, failed, deferred, unsent, released } = outcomes;
  // Still this run's claim (not settled by another run since).
  const mine = `status = 'sending' and claim_token = ?`;
  await writeSent(ctx, unrecorded.map((customerId) => ({ storeId: campaign.storeId, campaignId: campaign.id, customerId })));
  await withTransaction(ctx, async (trx) => {
    if (failed.length) {
      await trx.raw(
        `update campaign_recipients r set status = 'failed', error = f.error, suppressed = f.permanent
           from jsonb_to_recordset(?::jsonb) as f(id uuid, error text, permanent boolean)
          where r.store_id = ? and r.campaign_id = ? and r.customer_id = f.id and r.${mine}`,
        [JSON.stringify(failed), campaign.storeId, campaign.id, claims.token]
      );
      const permanent = failed.filter((f) => f.permanent);
      if (permanent.length) {
        await trx.raw(
          `insert into marketing_suppressions (store_id, email, reason, campaign_id)
           select ?, lower(f.email), f.error, ? from jsonb_to_recordset(?::jsonb) as f(email text, error text)
           on conflict (store_id, email) do nothing`,
          [campaign.storeId, campaign.id, JSON.stringify(permanent)]
        );
      }
    }
    if (unsent.length) {
      await trx.raw(
        `update campaign_recipients set status = 'cancelled', error = 'campaign stopped before this recipient''s turn'
          where store_id = ? and campaign_id = ? and customer_id = any(?::uuid[]) and ${mine}`,
        [campaign.storeId, campaign.id, unsent, claims.token]
      );
    }
    if (deferred.length) {
      await trx.raw(
        `update campaign_recipients r
            set status = case when r.attempts >= ${RECIPIENT_MAX_ATTEMPTS} then 'failed' else 'pending' end, error = d.error
           from jsonb_to_recordset(?::jsonb) as d(id uuid, error text)
          where r.store_id = ? and r.campaign_id = ? and r.customer_id = d.id and r.${mine}`,
        [JSON.stringify(deferred), campaign.storeId, campaign.id, claims.token]
      );
    }
  });
  await claims.release(released);
}
