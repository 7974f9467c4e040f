import type { AppContext } from '../context.js';
import { changeAnswer, commitOrderChange, findRefund, stripeParts, type Actor, type EditInput, type ExchangeInput } from '../services/orders/index.js';
import { taxProviderOf } from '../services/taxes/index.js';
import { refundThroughStripe } from './refund-order.js';
import { syncTaxWithProvider } from './tax-transactions.js';

/**
 * An order edit or exchange (orders/edits.ts): previewed, or committed by orders in one transaction;
 * then, when the total went down, the difference's pending refund is asked of Stripe for its parts
 * on Stripe payments (after the commit, never under a lock) and settled through the refund workflow,
 * or released with the timeline saying why if Stripe refuses.
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
  // Whether the order row moved past what the commit returned (a refund settles on it, in the transaction or
  // through Stripe after it; a tax transaction replaced): then the answer reads it again.
  let changedSince = Boolean(refund);
  // The difference's refund goes to the payments that hold the money (newest first), through Stripe
  // for its Stripe parts; the edit stands either way (a refusal is on the timeline, the refund released or left pending).
  if (refund && refund.status === 'pending' && stripeParts(refund, outcome.order).length) {
    await refundThroughStripe(ctx, storeId, outcome.order, refund, actor).catch(() => undefined);
    refund = (await findRefund(ctx.db, storeId, refund.id)) ?? null;
  }
  // An order taxed by a provider that records transactions (Stripe Tax) and edited into a new
  // calculation: its transaction is replaced now, or by the tax-sync job when the provider fails.
  const { taxProvider, taxReference, taxTransactionCalculation } = outcome.order;
  if (taxReference && taxReference !== taxTransactionCalculation && taxProviderOf(taxProvider).replace) {
    changedSince = true;
    await syncTaxWithProvider(ctx, { storeId, orderId, calculation: taxReference });
  }
  return changeAnswer(ctx, storeId, orderId, outcome, refund, changedSince ? null : { order: outcome.order, items: outcome.items });
}
