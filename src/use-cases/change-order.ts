import type { AppContext } from '../context.js';
import { changeAnswer, commitOrderChange, failPendingRefund, findRefund, type Actor, type EditInput, type ExchangeInput } from '../services/orders/index.js';
import { refundStripePayment } from '../services/payments/index.js';
import { settlePendingRefund } from './refund-order.js';

/**
 * An order edit or exchange (orders/edits.ts): previewed, or committed by orders in one transaction;
 * then, for a Stripe order whose total went down, the difference's pending refund is asked of Stripe
 * (after the commit, never under a lock) and settled through the refund workflow, or released with
 * the timeline saying why if Stripe refuses.
 */
export async function changeOrder(
  ctx: AppContext,
  storeId: string,
  orderId: string,
  kind: 'edit' | 'exchange',
  input: EditInput | ExchangeInput,
  actor: Actor,
  options: { dryRun?: boolean; mayRefund?: boolean } = {}
) {
  const result = await commitOrderChange(ctx, storeId, orderId, kind, input, actor, options);
  if ('preview' in result) return result.preview;
  const { outcome } = result;
  let refund = outcome.refund;
  if (refund && refund.status === 'pending' && outcome.order.paymentProvider === 'stripe') {
    try {
      const stripeRefund = await refundStripePayment(ctx, storeId, {
        paymentIntentId: outcome.order.paymentIntentId,
        amount: Number(refund.amount),
        metadata: { storeId, orderId, refundId: refund.id },
        idempotencyKey: `order-refund:${refund.id}`
      });
      if (stripeRefund.status === 'failed' || stripeRefund.status === 'canceled') await failPendingRefund(ctx, storeId, refund.id, actor, `Stripe answered ${stripeRefund.status}`);
      else await settlePendingRefund(ctx, storeId, refund.id, stripeRefund.id, actor);
    } catch (error) {
      await failPendingRefund(ctx, storeId, refund.id, actor, (error as Error).message);
    }
    refund = (await findRefund(ctx.db, storeId, refund.id)) ?? null;
  }
  return changeAnswer(ctx, storeId, orderId, outcome, refund);
}
