import type { Transaction } from '../../db/transaction.js';
import type { PaymentState } from '../payments/index.js';

/** A checkout session's payment, locked: its order once it has one, else the session's own payment status (Stripe events). */
export async function lockSessionPayment(trx: Transaction, storeId: string, sessionId: string): Promise<{ orderId: string | null; paymentStatus: PaymentState } | undefined> {
  return trx('checkoutSessions').where({ id: sessionId, storeId }).forUpdate().first('orderId', 'paymentStatus');
}

/** Moves a session's payment status (the caller decided the move with the payment state machine, under lockSessionPayment). */
export async function setSessionPaymentStatus(trx: Transaction, storeId: string, sessionId: string, state: PaymentState): Promise<void> {
  await trx('checkoutSessions').where({ storeId, id: sessionId }).update({ paymentStatus: state, updatedAt: trx.fn.now() });
}
