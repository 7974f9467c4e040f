import { readTogether, type Sql } from '../../db/transaction.js';
import { paidBalancesOf } from '../draft-orders/index.js';
import { lostByPayment } from './disputes.js';
import type { OrderRow, RefundPart, RefundRow } from './dto.js';

/** The key of what a Stripe order's edits collected by hand, among the PaymentIntents' in `refundedByPayment`. */
const BY_HAND = 'by-hand';

/**
 * Which payments a refund goes to (docs/orders-by-hand.md, Refunds). An order's money is held by
 * its first payment (Stripe or by hand), by each balance an edit collected through a payment link
 * (a Stripe PaymentIntent of its own) and, on a Stripe order, by what edits collected by hand
 * (`collectedByHand`: no PaymentIntent holds it, so it goes back by hand). A refund is split newest
 * payment first (the last money in goes back first: a refund of what an edit added reaches the link
 * that paid for it), the balances paid by link, then what was collected by hand, never above what
 * each still holds: its amount less its parts in refunds not failed and what lost disputes took.
 * What is left goes to the first payment, which holds the rest of what the order was paid (the
 * caller checked, under the order's lock, that the refund fits in what is left of the whole). Pending parts count, so concurrent
 * refunds, each reserved under the order's lock, never ask one payment for more than it holds.
 */
export async function allocateRefund(db: Sql, order: OrderRow, amount: number): Promise<RefundPart[]> {
  const stripe = order.paymentProvider === 'stripe' && order.paymentIntentId;
  const balances = await paidBalancesOf(db, order.storeId, order.id);
  const byHand = stripe ? Number(order.collectedByHand ?? 0) : 0;
  const parts: RefundPart[] = [];
  let remaining = amount;
  if (balances.length || byHand > 0) {
    const [used, lost] = await readTogether(db, [() => refundedByPayment(db, order.storeId, order.id), () => lostByPayment(db, order.storeId, order.id)]);
    const holders = [...balances.map((balance) => ({ key: balance.paymentIntentId, amount: balance.amount })), ...(byHand > 0 ? [{ key: BY_HAND, amount: byHand }] : [])];
    for (const holder of holders) {
      // A lost dispute took its amount back from that payment: Stripe refunds none of it.
      const take = Math.min(remaining, holder.amount - (used.get(holder.key) ?? 0) - (lost.get(holder.key) ?? 0));
      if (take <= 0) continue;
      parts.push(
        holder.key === BY_HAND
          ? { provider: 'manual', paymentIntentId: null, amount: take, stripeRefundId: null }
          : { provider: 'stripe', paymentIntentId: holder.key, amount: take, stripeRefundId: null }
      );
      remaining -= take;
      if (remaining === 0) break;
    }
  }
  if (remaining > 0) {
    parts.push({ provider: stripe ? 'stripe' : 'manual', paymentIntentId: stripe ? order.paymentIntentId : null, amount: remaining, stripeRefundId: null });
  }
  return parts;
}

/** What each payment (by its PaymentIntent; BY_HAND for a Stripe order's manual parts) gave back or holds for refunds in flight. */
async function refundedByPayment(db: Sql, storeId: string, orderId: string): Promise<Map<string, number>> {
  const rows = (await db('orderRefunds').where({ storeId, orderId }).whereNot({ status: 'failed' }).select('payments')) as Array<Pick<RefundRow, 'payments'>>;
  const used = new Map<string, number>();
  for (const part of rows.flatMap((row) => row.payments ?? [])) {
    const key = part.paymentIntentId ?? (part.provider === 'manual' ? BY_HAND : null);
    if (key) used.set(key, (used.get(key) ?? 0) + Number(part.amount));
  }
  return used;
}

/** The parts of a refund that Stripe pays back (a row from before parts were kept: the whole on the order's first payment). */
export function stripeParts(refund: RefundRow, order: Pick<OrderRow, 'paymentProvider' | 'paymentIntentId'>): RefundPart[] {
  if (refund.payments?.length) return refund.payments.filter((part) => part.provider === 'stripe');
  return order.paymentProvider === 'stripe' ? [{ provider: 'stripe', paymentIntentId: order.paymentIntentId, amount: Number(refund.amount), stripeRefundId: refund.stripeRefundId, legacy: true }] : [];
}

/**
 * Rewrites the refund's part on `paymentIntentId` (in its place in `payments`): `change` is a SQL
 * expression of `part` (and `?` bindings), applied only where `condition` (of `part`) holds.
 */
async function rewritePart(db: Sql, storeId: string, refundId: string, paymentIntentId: string, condition: { sql: string; bindings: Array<string | number> }, change: { sql: string; bindings: Array<string | number> }): Promise<void> {
  await db.raw(
    `update order_refunds set payments = (
       select coalesce(jsonb_agg(case when part->>'paymentIntentId' = ? and ${condition.sql} then ${change.sql} else part end order by position), '[]'::jsonb)
       from jsonb_array_elements(payments) with ordinality as parts(part, position)
     ), updated_at = now()
     where store_id = ? and id = ?`,
    [paymentIntentId, ...condition.bindings, ...change.bindings, storeId, refundId]
  );
}

/** A part's Stripe refund is known: kept on the refund row. */
export async function noteRefundPart(db: Sql, storeId: string, refundId: string, paymentIntentId: string, stripeRefundId: string): Promise<void> {
  await rewritePart(db, storeId, refundId, paymentIntentId, { sql: 'true', bindings: [] }, { sql: "jsonb_set(part, '{stripeRefundId}', to_jsonb(?::text))", bindings: [stripeRefundId] });
}

/**
 * The idempotency key a part is asked of Stripe under: one per refund and payment, so a retry of
 * the request asks no payment twice; after Stripe refused the part, the next ask takes a new key
 * (Stripe keeps a refused answer under its key), numbered by the refusals so far. Two retries at
 * once read the same count and share a key: Stripe answers them as one.
 */
export function refundPartKey(refundId: string, part: RefundPart): string {
  if (part.legacy) return `order-refund:${refundId}`;
  const base = `order-refund:${refundId}:${part.paymentIntentId}`;
  return part.refusals ? `${base}:retry-${part.refusals}` : base;
}

/** Stripe refused a part under the key of `refusals` refusals: counted once (two retries sharing the key count it once). */
export async function noteRefundPartRefused(db: Sql, storeId: string, refundId: string, paymentIntentId: string, refusals: number): Promise<void> {
  await rewritePart(db, storeId, refundId, paymentIntentId, { sql: "coalesce((part->>'refusals')::int, 0) = ?", bindings: [refusals] }, { sql: "jsonb_set(part, '{refusals}', to_jsonb(?::int + 1))", bindings: [refusals] });
}
