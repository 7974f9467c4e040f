import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../../context.js';
import { listUnsubscribeHeadersFor, unsubscribeUrlFor } from '../customers/unsubscribe.js';
import { clickSigningKey, trackLinks, trackTextLinks } from './clicks.js';
import { compileContent, renderCompiledSync, type CompiledContent } from '../liquid/email-content.js';
import { reserveSendSlots, storeSendRate } from './send-rate.js';
import { campaignSender, type CampaignSender } from './transports.js';
import { batchRange, completeBatch } from './start.js';
import { classifySmtpError } from './smtp-errors.js';
import { buildCampaignMessage } from './mime.js';
import { TemplateProblem } from '../liquid/sandboxed-engine.js';
import { failCampaignContent } from './content-failure.js';

/**
 * Recipients claimed (pending → sending) and sent together; their outcomes are recorded before the
 * next claim. About a quarter second of sending at the store's rate, so an unsubscribe is honoured
 * within that time, and at most 50.
 */
const chunkSize = (rate: number) => Math.max(1, Math.min(50, Math.round(rate / 4)));

interface ClaimedRecipient {
  customerId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  status: 'sending' | 'skipped';
}

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

/**
 * A batch job: claims chunks of its recipients, skips those who unsubscribed or got suppressed
 * since the snapshot, renders (templates compiled once per batch) and sends over the pooled
 * transport at the store's shared rate, and records each outcome before taking the next chunk. A
 * recipient left in `sending` by a killed worker is never sent again: it is marked failed.
 */
export async function sendCampaignBatch(ctx: AppContext, campaignId: string, batch: number, opts: { finalAttempt?: boolean; signal?: AbortSignal } = {}) {
  const campaign = await ctx
    .db('campaigns')
    .where({ id: campaignId })
    .first('id', 'storeId', 'type', 'status', 'subject', 'html', 'text', 'context', 'batchesTotal');
  if (!campaign || !campaign.batchesTotal) return { sent: 0, stopped: campaign?.status ?? 'missing' };
  const range = batchRange(batch, campaign.batchesTotal);
  const inBatch = () => {
    const query = ctx.db('campaignRecipients').where({ campaignId }).where('customerId', '>=', range[0]);
    return range[1] ? query.where('customerId', '<', range[1]) : query;
  };

  // Also when the campaign was cancelled meanwhile: no recipient stays `sending` for good.
  await inBatch()
    .where({ status: 'sending' })
    .update({ status: 'failed', error: 'interrupted while sending; not retried so nobody gets it twice' });
  if (campaign.status !== 'sending') return { sent: 0, stopped: campaign.status };

  let compiled: CompiledContent;
  try {
    compiled = compileContent(campaign);
  } catch (error) {
    await failCampaignContent(ctx, campaignId, `content cannot be rendered: ${(error as Error).message}`);
    return { sent: 0, stopped: 'failed' };
  }
  const store = await ctx.db('stores').where({ id: campaign.storeId }).first('name');
  const state: BatchState = {
    ctx,
    campaign,
    storeName: store?.name ?? '',
    compiled,
    contentFailure: null,
    sender: await campaignSender(ctx, campaign.storeId),
    rate: await storeSendRate(ctx, campaign.storeId),
    clickKey: clickSigningKey(ctx)
  };

  const deferred: string[] = [];
  let sent = 0;
  for (;;) {
    const status = await ctx.db('campaigns').where({ id: campaignId }).first('status');
    if (status?.status !== 'sending') return { sent, stopped: status?.status };
    // Worker shutting down: stop at a chunk boundary; the retried job resumes with what is pending.
    if (opts.signal?.aborted && !opts.finalAttempt) throw new TransientBatchError('worker shutting down; the batch resumes on another attempt');
    const claimed = await claimChunk(ctx, campaign.storeId, campaignId, range, deferred, chunkSize(state.rate));
    if (!claimed.length) break;
    const outcome = await sendChunk(state, claimed.filter((r) => r.status === 'sending'));
    sent += outcome.sent;
    deferred.push(...outcome.deferred);
    if (state.contentFailure) {
      await failCampaignContent(ctx, campaignId, state.contentFailure);
      return { sent, stopped: 'failed' };
    }
  }
  if (deferred.length) {
    if (!opts.finalAttempt) throw new TransientBatchError(`${deferred.length} recipient(s) hit a temporary SMTP error; retrying later`);
    await inBatch().where({ status: 'pending' }).update({ status: 'failed' });
  }
  await completeBatch(ctx, campaignId, batch);
  return { sent };
}

/**
 * A batch job that failed for good (no attempt left): what it had not sent is failed with the
 * reason and the batch counts as done, so the campaign still ends with exact counts.
 */
export async function abandonBatch(ctx: AppContext, campaignId: string, batch: number, reason: string): Promise<void> {
  const campaign = await ctx.db('campaigns').where({ id: campaignId }).first('status', 'batchesTotal');
  if (!campaign || campaign.status !== 'sending') return;
  const [from, to] = batchRange(batch, campaign.batchesTotal);
  const query = ctx.db('campaignRecipients').where({ campaignId }).where('customerId', '>=', from).whereIn('status', ['pending', 'sending']);
  await (to ? query.where('customerId', '<', to) : query).update({ status: 'failed', error: `batch gave up: ${reason}`.slice(0, 1000) });
  await completeBatch(ctx, campaignId, batch);
}

/** Takes the next chunk: `sending` when still subscribed and not suppressed, `skipped` otherwise. */
async function claimChunk(ctx: AppContext, storeId: string, campaignId: string, range: [string, string | null], exclude: string[], limit: number): Promise<ClaimedRecipient[]> {
  const result = await ctx.db.raw(
    `with picked as (
       select r2.customer_id from campaign_recipients r2
        where r2.campaign_id = ? and r2.customer_id >= ? and (?::uuid is null or r2.customer_id < ?::uuid)
          and r2.status = 'pending' and r2.customer_id <> all(?::uuid[])
        order by r2.customer_id
        limit ${limit}
        for update skip locked
     ), decided as (
       select p.customer_id, cu.email, cu.first_name, cu.last_name,
              case when cu.email_marketing is distinct from 'subscribed' or s.email is not null then 'skipped' else 'sending' end as next_status,
              s.email is not null as is_suppressed,
              case when cu.id is null then 'customer deleted'
                   when cu.email_marketing <> 'subscribed' then 'unsubscribed since the snapshot'
                   when s.email is not null then 'address suppressed' end as reason
         from picked p
         left join customers cu on cu.id = p.customer_id and cu.store_id = ?
         left join marketing_suppressions s on s.store_id = ? and s.email = lower(cu.email)
     )
     update campaign_recipients r
        set status = d.next_status, suppressed = d.is_suppressed, error = d.reason,
            attempts = r.attempts + case when d.next_status = 'sending' then 1 else 0 end
       from decided d
      where r.campaign_id = ? and r.customer_id = d.customer_id
      returning r.customer_id, d.email, d.first_name, d.last_name, r.status`,
    [campaignId, range[0], range[1], range[1], exclude, storeId, storeId, campaignId]
  );
  return result.rows as ClaimedRecipient[];
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
  sent: string[];
  failed: Array<{ id: string; email: string; error: string; permanent: boolean }>;
  deferred: Array<{ id: string; error: string }>;
  /** Claimed, but the campaign stopped (cancelled) before their turn. */
  unsent: string[];
}

/** Paced sends wake at most this often; each wake re-reads the campaign's status once. */
const MIN_WAKE_MS = 10;

const stillSending = async (ctx: AppContext, campaignId: string) =>
  (await ctx.db('campaigns').where({ id: campaignId }).first('status'))?.status === 'sending';

/**
 * Sends a claimed chunk at its reserved slots. After every wait the campaign's status is read
 * again, so a cancel answered during the wait stops what has not gone out yet (those end
 * `cancelled`); messages due together share that read.
 */
async function sendChunk(state: BatchState, recipients: ClaimedRecipient[]) {
  const { ctx, campaign } = state;
  const outcomes: Outcomes = { sent: [], failed: [], deferred: [], unsent: [] };
  if (recipients.length) {
    const slots = await reserveSendSlots(ctx, campaign.storeId, recipients.length, state.rate);
    const sends: Array<Promise<void>> = [];
    let next = 0;
    let lastWake = -Infinity;
    while (next < recipients.length) {
      const due = Math.max(slots[next]!, lastWake + MIN_WAKE_MS);
      if (due > Date.now()) {
        await sleep(due - Date.now());
        lastWake = Date.now();
        if (!(await stillSending(ctx, campaign.id))) break;
      }
      const now = Date.now();
      while (next < recipients.length && slots[next]! <= now) sends.push(sendOne(state, recipients[next++]!, outcomes));
    }
    await Promise.all(sends);
    outcomes.unsent.push(...recipients.slice(next).map((r) => r.customerId));
  }
  await recordOutcomes(ctx, campaign, outcomes);
  return { sent: outcomes.sent.length, deferred: outcomes.deferred.map((d) => d.id) };
}

async function sendOne(state: BatchState, recipient: ClaimedRecipient, outcomes: Outcomes) {
  const { campaign, sender } = state;
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
    outcomes.sent.push(recipient.customerId);
  } catch (error) {
    const kind = classifySmtpError(error);
    const text = String((error as Error).message ?? error).slice(0, 1000);
    if (kind === 'transient') outcomes.deferred.push({ id: recipient.customerId, error: text });
    else outcomes.failed.push({ id: recipient.customerId, email: recipient.email, error: text, permanent: kind === 'permanent' });
  }
}

/** One statement per outcome kind; a permanent failure also suppresses the address for this store. */
async function recordOutcomes(ctx: AppContext, campaign: { id: string; storeId: string }, outcomes: Outcomes) {
  const { sent: sentIds, failed, deferred, unsent } = outcomes;
  await ctx.db.transaction(async (trx) => {
    if (sentIds.length) {
      await trx.raw(`update campaign_recipients set status = 'sent', sent_at = now(), error = null where campaign_id = ? and customer_id = any(?::uuid[])`, [campaign.id, sentIds]);
    }
    if (failed.length) {
      await trx.raw(
        `update campaign_recipients r set status = 'failed', error = f.error, suppressed = f.permanent
           from jsonb_to_recordset(?::jsonb) as f(id uuid, error text, permanent boolean) where r.campaign_id = ? and r.customer_id = f.id`,
        [JSON.stringify(failed), campaign.id]
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
          where campaign_id = ? and customer_id = any(?::uuid[]) and status = 'sending'`,
        [campaign.id, unsent]
      );
    }
    if (deferred.length) {
      await trx.raw(
        `update campaign_recipients r
            set status = case when r.attempts >= ${RECIPIENT_MAX_ATTEMPTS} then 'failed' else 'pending' end, error = d.error
           from jsonb_to_recordset(?::jsonb) as d(id uuid, error text) where r.campaign_id = ? and r.customer_id = d.id`,
        [JSON.stringify(deferred), campaign.id]
      );
    }
  });
}
