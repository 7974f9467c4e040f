import type { AppContext } from '../../context.js';
import { conflict } from '../../errors.js';
import type { Sql, Transaction } from '../../db/transaction.js';
import { findOrder } from './cancel.js';
import type { OrderRow } from './dto.js';
import { applyFigureChange } from './order-figures.js';
import { recordOrderEvent, type Actor } from './timeline.js';

/**
 * Disputes of an order's card payments (Stripe's `charge.dispute.*` events): one row per Stripe
 * dispute, at the status of the latest event seen. Stripe's statuses: an inquiry (`warning_*`)
 * takes no money and leaves the charge refundable; a chargeback (`needs_response`, `under_review`)
 * has already taken the disputed amount from the store and refuses refunds of the charge until it
 * closes; `won` gives the amount back, `lost` keeps it with the customer's bank.
 */
export const DISPUTE_STATUSES = [
  'warning_needs_response',
  'warning_under_review',
  'warning_closed',
  'needs_response',
  'under_review',
  'won',
  'lost',
  'charge_refunded',
  'prevented'
] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

const CLOSED: ReadonlySet<DisputeStatus> = new Set(['warning_closed', 'won', 'lost', 'charge_refunded', 'prevented']);
/** The statuses under which Stripe refuses to refund the charge (`charge_disputed`). */
export const REFUND_BLOCKING_DISPUTES: readonly DisputeStatus[] = ['needs_response', 'under_review'];

export const isDisputeClosed = (status: DisputeStatus) => CLOSED.has(status);

/** What one Stripe event says of a dispute. */
export interface DisputeFact {
  stripeDisputeId: string;
  paymentIntentId: string;
  amount: number;
  currency: string;
  reason: string;
  status: DisputeStatus;
  evidenceDueBy: Date | null;
  /** The event's `created`: an event older than the one the row holds changes nothing. */
  created: Date;
}

export interface DisputeRow {
  storeId: string;
  id: string;
  orderId: string;
  stripeDisputeId: string;
  paymentIntentId: string;
  amount: string | number;
  currency: string;
  reason: string;
  status: DisputeStatus;
  evidenceDueBy: Date | null;
  lastEventCreated: Date;
  closedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const toDisputeDto = (row: DisputeRow) => ({
  id: row.id,
  orderId: row.orderId,
  stripeDisputeId: row.stripeDisputeId,
  amount: Number(row.amount),
  currency: row.currency,
  reason: row.reason,
  status: row.status,
  evidenceDueBy: row.evidenceDueBy,
  closedAt: row.closedAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});

/** `created`: this event recorded the dispute first (its row was inserted). */
export type DisputeChange = { applied: false; reason: string } | { applied: true; changed: boolean; created: boolean; opened: boolean; closed: boolean; dispute: DisputeRow };

/**
 * Two events of the same second: a closing status outranks an open one, so a dispute opened and
 * closed within a second ends closed whichever event is processed last.
 */
const rank = (status: DisputeStatus) => (CLOSED.has(status) ? 1 : 0);

const timelineData = (row: DisputeRow) => ({
  disputeId: row.id,
  stripeDisputeId: row.stripeDisputeId,
  amount: Number(row.amount),
  currency: row.currency,
  reason: row.reason,
  status: row.status,
  evidenceDueBy: row.evidenceDueBy
});

/**
 * A lost dispute's amount leaves the order's figures (revenue, the customer's spend) as a refund's
 * would: `amount_charged_back` moves by `delta` under the order's lock, and the figures follow.
 */
async function moveChargedBack(trx: Transaction, storeId: string, orderId: string, delta: number): Promise<void> {
  if (delta === 0) return;
  const before = (await trx('orders').where({ storeId, id: orderId }).forUpdate().first()) as OrderRow;
  const [after] = (await trx('orders')
    .where({ storeId, id: orderId })
    .update({ amountChargedBack: trx.raw('greatest(0, amount_charged_back + ?)', [delta]), updatedAt: trx.fn.now() })
    .returning('*')) as OrderRow[];
  await applyFigureChange(trx, before, before, after!);
}

/**
 * Records what a dispute event says, under the dispute's row lock, in the caller's transaction:
 * the first event inserts the row (timeline `dispute_opened`, and `dispute_closed` too if it is
 * already closed); a later one moves the status (`dispute_updated` between open statuses,
 * `dispute_closed` when it closes, `dispute_opened` if a closed dispute opens again); a `lost` one
 * takes its amount out of the order's figures (moveChargedBack). An event older than the row's last
 * changes nothing, so events delivered out of order never move it back.
 */
export async function recordDispute(trx: Transaction, storeId: string, orderId: string, fact: DisputeFact, actor: Actor): Promise<DisputeChange> {
  const values = {
    amount: fact.amount,
    currency: fact.currency.toUpperCase(),
    reason: fact.reason,
    status: fact.status,
    evidenceDueBy: fact.evidenceDueBy,
    lastEventCreated: fact.created
  };
  const [inserted] = (await trx('orderDisputes')
    .insert({ storeId, orderId, stripeDisputeId: fact.stripeDisputeId, paymentIntentId: fact.paymentIntentId, ...values, closedAt: isDisputeClosed(fact.status) ? trx.fn.now() : null })
    .onConflict(['storeId', 'stripeDisputeId'])
    .ignore()
    .returning('*')) as DisputeRow[];
  if (inserted) {
    if (inserted.status === 'lost') await moveChargedBack(trx, storeId, orderId, Number(inserted.amount));
    await recordOrderEvent(trx, storeId, orderId, 'dispute_opened', actor, timelineData(inserted));
    if (isDisputeClosed(inserted.status)) await recordOrderEvent(trx, storeId, orderId, 'dispute_closed', actor, timelineData(inserted));
    return { applied: true, changed: true, created: true, opened: true, closed: isDisputeClosed(inserted.status), dispute: inserted };
  }

  const existing = (await trx('orderDisputes').where({ storeId, stripeDisputeId: fact.stripeDisputeId }).forUpdate().first()) as DisputeRow;
  if (existing.orderId !== orderId) return { applied: false, reason: `dispute ${fact.stripeDisputeId} belongs to another order` };
  const last = existing.lastEventCreated.getTime();
  const created = fact.created.getTime();
  if (created < last || (created === last && rank(fact.status) < rank(existing.status))) {
    return { applied: false, reason: `an older event: the dispute is ${existing.status} since a later one` };
  }
  const changed =
    existing.status !== fact.status ||
    Number(existing.amount) !== fact.amount ||
    existing.reason !== fact.reason ||
    (existing.evidenceDueBy?.getTime() ?? null) !== (fact.evidenceDueBy?.getTime() ?? null);
  const wasClosed = isDisputeClosed(existing.status);
  const nowClosed = isDisputeClosed(fact.status);
  const [row] = (await trx('orderDisputes')
    .where({ storeId, id: existing.id })
    .update({ ...values, closedAt: nowClosed ? (wasClosed ? existing.closedAt : trx.fn.now()) : null, ...(changed ? { updatedAt: trx.fn.now() } : {}) })
    .returning('*')) as DisputeRow[];
  const lostBefore = existing.status === 'lost' ? Number(existing.amount) : 0;
  const lostNow = fact.status === 'lost' ? fact.amount : 0;
  await moveChargedBack(trx, storeId, orderId, lostNow - lostBefore);
  const opened = wasClosed && !nowClosed;
  const closed = !wasClosed && nowClosed;
  if (existing.status !== fact.status) {
    await recordOrderEvent(trx, storeId, orderId, opened ? 'dispute_opened' : closed ? 'dispute_closed' : 'dispute_updated', actor, timelineData(row!));
  }
  return { applied: true, changed, created: false, opened, closed, dispute: row! };
}

/** Whether a dispute of one of the order's charges is open now, so that Stripe refuses its refunds. */
export async function refundsRefusedOf(db: Sql, storeId: string, orderId: string): Promise<boolean> {
  return Boolean(await db('orderDisputes').where({ storeId, orderId }).whereIn('status', REFUND_BLOCKING_DISPUTES).first('id'));
}

/** What lost disputes took of each PaymentIntent of the order: a payment holds that much less for refunds. */
export async function lostByPayment(db: Sql, storeId: string, orderId: string): Promise<Map<string, number>> {
  const rows = (await db('orderDisputes')
    .where({ storeId, orderId, status: 'lost' })
    .groupBy('paymentIntentId')
    .select('paymentIntentId', db.raw('sum(amount) as lost'))) as Array<{ paymentIntentId: string; lost: string | number }>;
  return new Map(rows.map((row) => [row.paymentIntentId, Number(row.lost)]));
}

export const paymentDisputed = () =>
  conflict('payment_disputed', "The order's payment is disputed: Stripe refuses refunds of a disputed charge until the dispute closes (answer it in Stripe's dashboard)", [
    { path: 'orderId', message: 'payment is disputed' }
  ]);

/** One dispute as the admin API shows it (the webhook topics' `data`), or null. */
export async function disputeResource(db: Sql, storeId: string, id: string) {
  const row = (await db('orderDisputes').where({ storeId, id }).first()) as DisputeRow | undefined;
  return row ? toDisputeDto(row) : null;
}

/**
 * An order's disputes, oldest first. Not paged: a dispute is about one charge, and an order has a
 * charge for its payment and one per balance it collected by link.
 */
export async function listDisputes(ctx: AppContext, storeId: string, orderId: string) {
  await findOrder(ctx, storeId, orderId);
  const rows = (await ctx.db('orderDisputes').where({ storeId, orderId }).orderBy(['createdAt', 'id'])) as DisputeRow[];
  return { disputes: rows.map(toDisputeDto) };
}
