import type { StripeEvent } from '../../adapters/payments/index.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { stripeEventJob } from '../../jobs/stripe-event.js';
import { raiseIssue } from '../issues/index.js';
import { enqueueJob } from '../../platform/outbox/enqueue.js';
import type { EventOutcome } from './event-outcome.js';
import { HANDLED_EVENTS } from './stripe-event-types.js';
import { verifiedStripeEvent } from './stripe-event-verification.js';
import { withTransaction } from '../../platform/with-transaction.js';

/**
 * The receiver: verifies `Stripe-Signature` over the raw body (and the event's shape), stores the
 * event once by its id and queues its processing (with a short delay, so the shopper's own confirm
 * usually wins) in the same transaction. A redelivery of a stored event is acknowledged and changes nothing.
 */
export async function receiveStripeEvent(ctx: AppContext, rawBody: Buffer, signature: string | undefined) {
  const event = verifiedStripeEvent(ctx, rawBody, signature);
  const handled = (HANDLED_EVENTS as readonly string[]).includes(event.type);
  const stored = await withTransaction(ctx, async (trx) => {
    const inserted = await trx('stripeEvents')
      .insert({
        id: event.id,
        type: event.type,
        accountId: event.account ?? null,
        payload: JSON.stringify(event),
        status: handled ? 'pending' : 'processed',
        processedAt: handled ? null : trx.fn.now()
      })
      .onConflict('id')
      .ignore()
      .returning('id');
    if (inserted.length && handled) {
      await enqueueJob(trx, stripeEventJob, { eventId: event.id }, { jobId: `stripe-event-${event.id}`, runAt: new Date(Date.now() + ctx.config.checkout.stripeWebhookDelayMs) });
    }
    return inserted.length > 0;
  });
  return { received: true, duplicate: !stored };
}

/**
 * A stored event to process (src/use-cases/stripe-events.ts), its attempt counted; null when it
 * was processed or ignored already (a retry after success changes nothing) or is gone.
 */
export async function claimStripeEvent(ctx: AppContext, eventId: string): Promise<{ row: { type: string; payload: StripeEvent } | null; status: string }> {
  const row = await ctx.db('stripeEvents').where({ id: eventId }).first();
  if (!row || row.status === 'processed' || row.status === 'ignored') return { row: null, status: row?.status ?? 'gone' };
  await ctx.db('stripeEvents').where({ id: eventId }).update({ attempts: ctx.db.raw('attempts + 1') });
  return { row, status: row.status };
}

/** The event ends `processed`, or `ignored` with the reason it changed nothing (kept on the row). */
export async function finishStripeEvent(ctx: AppContext, eventId: string, result: EventOutcome): Promise<void> {
  await ctx.db('stripeEvents')
    .where({ id: eventId })
    .update({ status: result.ignored ? 'ignored' : 'processed', reason: result.ignored ? result.reason.slice(0, 2000) : null, processedAt: ctx.db.fn.now(), error: null });
}

/**
 * The store an event is about, for an issue: the one whose connected account sent it. The
 * object's metadata names a store only for events from the platform account (any connected
 * account can write any metadata).
 */
async function storeOfEvent(ctx: AppContext, accountId: string | null, object: { metadata?: Record<string, string> } | undefined) {
  if (accountId) return ((await ctx.db('storePaymentAccounts').where({ accountId }).first('storeId')) as { storeId: string } | undefined)?.storeId;
  return object?.metadata?.storeId;
}

/** After the last retry: the event is marked failed and the store's operator sees an issue. */
export async function stripeEventFailedForGood(ctx: AppContext, eventId: string, error: unknown) {
  const message = error instanceof AppError ? `${error.code}: ${error.message}` : (error as Error).message;
  await ctx.db('stripeEvents').where({ id: eventId }).update({ status: 'failed', error: message.slice(0, 2000) });
  const row = await ctx.db('stripeEvents').where({ id: eventId }).first('type', 'payload', 'accountId');
  const object = (row?.payload as StripeEvent | undefined)?.data?.object as { metadata?: Record<string, string> } | undefined;
  const storeId = await storeOfEvent(ctx, row?.accountId ?? null, object);
  if (!storeId || !/^[0-9a-f-]{36}$/i.test(storeId)) {
    ctx.log.error({ eventId, err: { message } }, 'stripe event failed for good and belongs to no known store');
    return;
  }
  await raiseIssue(ctx.db, {
    storeId,
    kind: 'stripe_webhook_failed',
    subject: eventId,
    severity: row?.type === 'payment_intent.succeeded' ? 'critical' : 'warning',
    title: `A Stripe ${row?.type ?? 'event'} could not be processed`,
    detail: `Event ${eventId}: ${message}. A paid payment may have no order; check the Stripe dashboard.`
  });
}
