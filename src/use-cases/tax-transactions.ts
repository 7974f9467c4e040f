import type { AppContext } from '../context.js';
import { taxSyncJob, type TaxSyncPayload } from '../jobs/tax-sync.js';
import { enqueueJob } from '../platform/outbox/enqueue.js';
import { orderTaxTransaction, setOrderTaxTransaction } from '../services/orders/index.js';
import { taxProviderOf } from '../services/taxes/index.js';

/**
 * The provider's side of an order's tax (Stripe Tax): the transaction recorded from the calculation
 * once the order is placed, a reversal of each refund's amount, and, after an edit or exchange that
 * gave the order a new calculation, the transaction replaced (provider.replace). Tax authorities are reported
 * from these, so a failure is not the end: the call is made right away (the order or the refund
 * stands either way) and, when it fails, retried by the `tax-sync` job until the provider answers.
 * Every call is idempotent at the provider (keyed by the order or the refund), and the record is
 * skipped once the order holds its transaction id.
 */
export async function syncTaxWithProvider(ctx: AppContext, payload: TaxSyncPayload): Promise<void> {
  try {
    await runTaxSync(ctx, payload);
  } catch (error) {
    ctx.log.warn({ err: { message: (error as Error).message }, storeId: payload.storeId, orderId: payload.orderId, refundId: payload.refundId }, 'tax provider call failed: retried by the tax-sync job');
    const jobId = payload.refundId ? `tax-reversal-${payload.refundId}` : `tax-transaction-${payload.orderId}${payload.calculation ? `-${payload.calculation}` : ''}`;
    await enqueueJob(ctx.db, taxSyncJob, payload, { jobId });
  }
}

/** One attempt (the job's processor): throws when the provider fails, so the queue retries it. */
export async function runTaxSync(ctx: AppContext, payload: TaxSyncPayload): Promise<void> {
  const order = await orderTaxTransaction(ctx.db, payload.storeId, payload.orderId);
  if (!order) return;
  const provider = taxProviderOf(order.taxProvider);
  let transactionId = order.taxTransactionId;
  // The refunds the transaction in force already gives back: a replacement takes off every refund
  // settled when it was made, a queued reversal among them included (it must not be taken off twice).
  let givenBack = order.taxTransactionRefunds;
  if (!transactionId && provider.record && order.taxReference) {
    // Also before a reversal: a refund of an order whose record failed reverses what is recorded now.
    transactionId = await provider.record(ctx, payload.storeId, { id: payload.orderId, number: order.number, taxReference: order.taxReference });
    if (transactionId) await setOrderTaxTransaction(ctx.db, payload.storeId, payload.orderId, transactionId, order.taxReference);
  } else if (transactionId && provider.replace && order.taxReference && order.taxTransactionCalculation && order.taxReference !== order.taxTransactionCalculation) {
    // Edited since it was recorded (a new calculation): the transaction is replaced, also before a reversal.
    const replaced = await provider.replace(ctx, payload.storeId, { id: payload.orderId, number: order.number, taxReference: order.taxReference, orderTransactionId: transactionId, refunded: order.refunded });
    await setOrderTaxTransaction(ctx.db, payload.storeId, payload.orderId, replaced, order.taxReference, { transactionId, refunds: order.refundIds });
    transactionId = replaced;
    givenBack = order.refundIds;
  }
  if (!payload.refundId || !transactionId || !provider.reverse) return;
  if (givenBack.includes(payload.refundId)) return;
  await provider.reverse(ctx, payload.storeId, { id: payload.refundId, orderTransactionId: transactionId, amount: payload.amount! });
}
