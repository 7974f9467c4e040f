import { conflict, notFound } from '../../errors.js';
import type { Transaction } from '../../db/transaction.js';
import type { OrderRow } from './dto.js';
import { recordOrderEvent, type Actor } from './timeline.js';

/**
 * An edit's balance collected another way than its link (cash, a bank transfer) and recorded by a
 * member (use-cases/collect-order-balance.ts). The order is locked first, as an edit locks it
 * before the balances it takes back, so the two never wait on each other in opposite orders.
 */
export async function lockOrderForBalance(trx: Transaction, storeId: string, orderId: string): Promise<void> {
  const order = (await trx('orders').where({ storeId, id: orderId }).forUpdate().first('status')) as Pick<OrderRow, 'status'> | undefined;
  if (!order) throw notFound('Order');
  if (order.status === 'cancelled') throw conflict('conflict', 'This order is cancelled: its balance can no longer be recorded as paid', [{ path: 'orderId', message: 'order is cancelled' }]);
}

/**
 * What the balance still owed (its amount less what later edits took back) is now held by hand:
 * `collected_by_hand` grows by it, so a refund of a Stripe order gives that part back by hand
 * (refund-payments.ts), and the timeline records it as paid with the member's reference and note.
 */
export async function recordBalanceCollectedByHand(
  trx: Transaction,
  storeId: string,
  orderId: string,
  collected: { amount: number; balanceInvoiceId: string; reference: string | null; note: string | null },
  actor: Actor
): Promise<void> {
  await trx('orders')
    .where({ storeId, id: orderId })
    .update({ collectedByHand: trx.raw('collected_by_hand + ?', [collected.amount]), updatedAt: trx.fn.now() });
  await recordOrderEvent(trx, storeId, orderId, 'paid', actor, {
    amount: collected.amount,
    balanceInvoiceId: collected.balanceInvoiceId,
    byHand: true,
    reference: collected.reference,
    note: collected.note
  });
}
