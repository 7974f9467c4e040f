import { adjustCustomerTotals } from '../customers/index.js';
import { revenueOf, type PaymentState } from '../payments/index.js';
import { subtractRevenue } from './create-order.js';
import type { Transaction } from '../../db/transaction.js';

/** What of an order the figures count: its status, payment state and amounts. */
export interface OrderFigureState {
  status: string;
  paymentStatus: PaymentState;
  total: number | string;
  amountRefunded: number | string;
  /** What lost disputes took back (disputes.ts). */
  amountChargedBack?: number | string;
}

/**
 * What an order adds to revenue and to its customer's spend: nothing once cancelled, else net of
 * refunds and of what lost disputes took back (never below nothing: a refund of money a dispute
 * had already taken cannot happen, but the figures do not go negative if the two overlap).
 */
export const netOfOrder = (s: OrderFigureState) =>
  s.status === 'cancelled' ? 0 : Math.max(0, revenueOf(s.paymentStatus, Number(s.total), Number(s.amountRefunded)) - Number(s.amountChargedBack ?? 0));

/**
 * An order changed (paid, refunded, voided, cancelled): the day's revenue and the customer's
 * `ordersCount` / `totalSpent` follow, in the caller's transaction, so each change counts once.
 */
export async function applyFigureChange(
  trx: Transaction,
  order: { storeId: string; customerId: string | null; createdAt: Date },
  before: OrderFigureState,
  after: OrderFigureState
): Promise<void> {
  const taken = netOfOrder(before) - netOfOrder(after);
  if (taken !== 0) await subtractRevenue(trx, order.storeId, order.createdAt, taken);
  const orders = (after.status === 'cancelled' ? 0 : 1) - (before.status === 'cancelled' ? 0 : 1);
  if (order.customerId) await adjustCustomerTotals(trx, order.storeId, order.customerId, { orders, spent: -taken });
}
