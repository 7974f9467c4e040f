import type { AppContext } from '../../context.js';
import { reactInTransaction } from '../../platform/events/domain-events.js';
import type { OrderRow, RefundRow } from './dto.js';
import { orderItemsOf } from './cancel.js';
import { moveOrderPayment } from './payment-moves.js';
import { amountRefundTax } from './refund-amounts.js';
import { refundSums } from './refunds.js';
import { recordOrderEvent, WEBHOOK } from './timeline.js';
import { withTransaction } from '../../platform/with-transaction.js';

/** A refund as Stripe reports it (refund.created / refund.updated / charge.refund.updated, or a charge's refunds). */
export interface ReportedRefund {
  id: string;
  amount: number;
  status: string | null;
  metadata?: Record<string, string> | null;
  /** The PaymentIntent it gave back from: the order's first payment or a balance paid by link. */
  paymentIntentId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The order's refund Stripe reports: the one this API asked for (its metadata names it), else the one recorded by its Stripe id. */
export async function findReportedRefund(ctx: AppContext, storeId: string, orderId: string, reported: ReportedRefund): Promise<RefundRow | undefined> {
  const ownId = reported.metadata?.refundId;
  return (
    ownId && UUID.test(ownId)
      ? await ctx.db('orderRefunds').where({ storeId, orderId, id: ownId }).first()
      : await ctx.db('orderRefunds').where({ storeId, orderId, stripeRefundId: reported.id }).first()
  ) as RefundRow | undefined;
}

/**
 * A refund made elsewhere (Stripe's dashboard) is recorded once, by its Stripe id (unique), and
 * moves the payment: the amount refunded becomes the larger of what was recorded and what the
 * refund rows add up to, so a `charge.refunded` that already counted it does not count it twice.
 * A repeat changes nothing.
 */
export async function recordStripeRefund(ctx: AppContext, storeId: string, orderId: string, reported: ReportedRefund): Promise<{ changed: boolean; outcome: string; refundId?: string }> {
  return withTransaction(ctx, async (trx) => {
    const order = (await trx('orders').where({ storeId, id: orderId }).forUpdate().first()) as OrderRow | undefined;
    if (!order) return { changed: false, outcome: 'the order is gone' };
    // Its tax, as an admin refund of that amount would give back (for the tax report and the provider).
    const tax = amountRefundTax(order, await orderItemsOf(trx, storeId, orderId), (await refundSums(trx, storeId, orderId)).taxRefunded, reported.amount);
    const inserted = (await trx('orderRefunds')
      .insert({
        storeId,
        orderId,
        status: 'succeeded',
        source: 'stripe',
        amount: reported.amount,
        stripeRefundId: reported.id,
        reason: 'refunded in Stripe',
        taxAmount: tax.taxAmount,
        taxLines: JSON.stringify(tax.taxLines),
        notifyCustomer: false,
        // Counted against the payment it came from, so a later refund asks that payment only for what it still holds.
        payments: reported.paymentIntentId ? JSON.stringify([{ provider: 'stripe', paymentIntentId: reported.paymentIntentId, amount: reported.amount, stripeRefundId: reported.id }]) : null
      })
      .onConflict(['storeId', 'stripeRefundId'])
      .ignore()
      .returning('*')) as RefundRow[];
    if (!inserted.length) return { changed: false, outcome: `refund ${reported.id} already recorded` };
    const settled = Number((await trx('orderRefunds').where({ storeId, orderId, status: 'succeeded' }).sum<{ sum: string | null }[]>('amount as sum').first())?.sum ?? 0);
    const amountRefunded = Math.min(Number(order.total), Math.max(Number(order.amountRefunded), settled));
    if (amountRefunded > Number(order.amountRefunded)) {
      await moveOrderPayment(trx, storeId, orderId, { state: amountRefunded >= Number(order.total) ? 'refunded' : 'partially_refunded', amountRefunded }, { actor: WEBHOOK });
    }
    await recordOrderEvent(trx, storeId, orderId, 'refunded', WEBHOOK, { refundId: inserted[0]!.id, amount: reported.amount, source: 'stripe', stripeRefundId: reported.id });
    await reactInTransaction(ctx, trx, [{ type: 'order.changed', storeId, orderId, change: 'refunded' }]);
    return { changed: true, outcome: `refund ${reported.id} recorded`, refundId: inserted[0]!.id };
  });
}
