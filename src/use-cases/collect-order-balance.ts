import { randomUUID } from 'node:crypto';
import Joi from 'joi';
import type { StripeEvent } from '../adapters/payments/index.js';
import type { AppContext } from '../context.js';
import { AppError, conflict, notFound } from '../errors.js';
import { recordAudit } from '../services/audit/index.js';
import { balanceInvoicesOf, balanceOfToken, describeInvoice, lockBalanceInvoice, markBalancePaid, noteBalanceRefund, voidBalanceInvoice, type BalanceInvoiceRow } from '../services/draft-orders/index.js';
import { findOrder, getOrder, lockOrderForBalance, recordBalanceCollectedByHand, recordOrderEvent, WEBHOOK, type Actor } from '../services/orders/index.js';
import { applied, connectedStripeAccount, ignored, refundStripePayment, startStripePayment, type EventOutcome } from '../services/payments/index.js';
import { cachedStore } from '../services/stores/index.js';
import { withTransaction } from '../platform/with-transaction.js';
import { startInvoicePayment } from './complete-draft-order.js';

/**
 * An edit's balance paid through its link (collect: 'invoice', docs/orders-by-hand.md): the public
 * invoice page and pay button serve a draft's invoice or an order's balance, whichever the token
 * names; the balance's PaymentIntent succeeding marks it paid once (timeline `paid`, webhook
 * `order.updated`); a later payment of a paid (or voided) balance is refunded in full, as a draft's.
 * A member voids an open link by hand (voidOrderBalance): its page answers 410 invoice_void and its
 * pay button refuses, exactly as for a cancelled order's.
 */

/** 410 invoice_void: the link was voided (by hand, or with its order's cancel); nothing can be paid through it. */
const invoiceVoid = () => new AppError(410, 'invoice_void', 'This payment link was voided by the store: nothing is owed through it', [{ path: 'token', message: 'the invoice is void' }]);

/** GET /public/invoices/{token}: a balance's page, else the draft's (404 for neither). */
export async function describePublicInvoice(ctx: AppContext, token: string) {
  const balance = await balanceOfToken(ctx.db, token);
  if (!balance) return describeInvoice(ctx, token);
  if (balance.status === 'void') throw invoiceVoid();
  const store = await cachedStore(ctx, balance.storeId);
  const order = (await ctx.db('orders').where({ storeId: balance.storeId, id: balance.orderId }).first('number')) as { number: number };
  const amount = Number(balance.amount);
  const title = `Balance of order #${order.number}`;
  return {
    invoice: {
      kind: 'order_balance' as const,
      orderNumber: `#${order.number}`,
      status: balance.status === 'open' ? ('open' as const) : ('paid' as const),
      email: balance.email,
      currency: balance.currency,
      lines: [{ title, quantity: 1, unitPrice: amount, lineTotal: amount, taxAmount: 0 }],
      subtotal: amount,
      discountTotal: 0,
      shippingTotal: 0,
      // The balance is a difference of totals, tax included; its tax is on the order's lines.
      taxTotal: 0,
      pricesIncludeTax: true,
      total: amount
    },
    store: { name: store.name }
  };
}

/** POST /public/invoices/{token}/pay: a PaymentIntent for exactly the balance (409 once it is paid or void), else the draft's. */
export async function startPublicInvoicePayment(ctx: AppContext, token: string) {
  const balance = await balanceOfToken(ctx.db, token);
  if (!balance) return startInvoicePayment(ctx, token);
  if (balance.status === 'void') throw invoiceVoid();
  if (balance.status !== 'open') throw conflict('conflict', 'This invoice is already paid', [{ path: 'token', message: `the invoice is ${balance.status}` }]);
  const amount = Number(balance.amount);
  const intent = await startStripePayment(ctx, balance.storeId, {
    amount,
    currency: balance.currency,
    email: balance.email,
    metadata: { balanceInvoiceId: balance.id, orderId: balance.orderId },
    idempotencyKey: `order-balance:${balance.id}:payment:${randomUUID()}`
  });
  return { payment: { provider: 'stripe' as const, paymentIntentId: intent.id, clientSecret: intent.clientSecret, amount, currency: balance.currency } };
}

const intentObject = Joi.object({
  id: Joi.string().max(255).required(),
  amount: Joi.number().integer().min(0).required(),
  currency: Joi.string().max(10).required(),
  metadata: Joi.object({ storeId: Joi.string().uuid().required(), balanceInvoiceId: Joi.string().uuid().required() }).unknown(true).required()
}).unknown(true);

/** Whether a PaymentIntent event pays an order's balance (its metadata names a balance invoice). */
export const paysOrderBalance = (event: StripeEvent) => Boolean((event.data.object as { metadata?: Record<string, string> | null }).metadata?.balanceInvoiceId);

/**
 * `payment_intent.succeeded` for a balance: under the invoice's lock, the first payment of its
 * amount marks it paid and the order's timeline and webhooks say so; the same payment again
 * changes nothing; another payment after that (two tabs) or of a voided balance is refunded whole.
 */
export async function onBalancePaymentEvent(ctx: AppContext, event: StripeEvent): Promise<EventOutcome> {
  const { value, error } = intentObject.validate(event.data.object);
  if (error) return ignored(`malformed payment_intent: ${error.message}`);
  const intent = value as { id: string; amount: number; currency: string; metadata: { storeId: string; balanceInvoiceId: string } };
  if (event.type !== 'payment_intent.succeeded') return ignored(`${event.type} changes no order balance`);
  const { storeId, balanceInvoiceId } = intent.metadata;
  const account = await connectedStripeAccount(ctx.db, storeId);
  if (!account || event.account !== account) return ignored("sent for another account than the store's connected account");
  const outcome = await withTransaction(ctx, async (trx, emit) => {
    const row = await lockBalanceInvoice(trx, storeId, balanceInvoiceId);
    if (intent.amount !== Number(row.amount) || intent.currency.toLowerCase() !== row.currency.toLowerCase()) {
      return { kind: 'ignored' as const, reason: `amount ${intent.amount} ${intent.currency} does not match the balance's ${row.amount} ${row.currency}` };
    }
    if (row.paymentIntentId === intent.id) return { kind: 'ignored' as const, reason: 'this payment already paid the balance' };
    if (row.refundedIntents.includes(intent.id)) return { kind: 'ignored' as const, reason: 'this payment was already refunded' };
    if (row.status === 'open') {
      await markBalancePaid(trx, row, intent.id);
      await recordOrderEvent(trx, storeId, row.orderId, 'paid', WEBHOOK, { amount: intent.amount, paymentIntentId: intent.id, balanceInvoiceId: row.id, reference: 'edit balance paid by link' });
      emit({ type: 'order.changed', storeId, orderId: row.orderId, change: 'updated' });
      return { kind: 'paid' as const, row };
    }
    return { kind: 'refund' as const, row };
  });
  if (outcome.kind === 'ignored') return ignored(outcome.reason);
  if (outcome.kind === 'paid') return applied(`order ${outcome.row.orderId}: balance ${outcome.row.id} paid`);
  await refundDuplicate(ctx, outcome.row, intent);
  return applied(`balance ${balanceInvoiceId} already ${outcome.row.status}: payment ${intent.id} refunded`);
}

/** A payment the balance did not need goes back whole on Stripe (once: keyed by the intent), noted on the invoice and the timeline. */
async function refundDuplicate(ctx: AppContext, row: BalanceInvoiceRow, intent: { id: string; amount: number }) {
  const refund = await refundStripePayment(ctx, row.storeId, {
    paymentIntentId: intent.id,
    amount: intent.amount,
    metadata: { storeId: row.storeId, balanceInvoiceId: row.id, reason: 'duplicate balance payment' },
    idempotencyKey: `order-balance-duplicate:${intent.id}`
  });
  await noteBalanceRefund(ctx.db, row, intent.id);
  await recordOrderEvent(ctx.db, row.storeId, row.orderId, 'duplicate_payment_refunded', WEBHOOK, { paymentIntentId: intent.id, amount: intent.amount, stripeRefundId: refund.id, balanceInvoiceId: row.id });
}

/** An order balance invoice as the admin API shows it. */
const balanceDto = (row: BalanceInvoiceRow) => ({
  id: row.id,
  orderId: row.orderId,
  status: row.status,
  amount: Number(row.amount),
  currency: row.currency,
  paymentIntentId: row.paymentIntentId,
  takenBack: Number(row.takenBack ?? 0),
  paidAt: row.paidAt ? new Date(row.paidAt).toISOString() : null,
  createdAt: new Date(row.createdAt).toISOString()
});

/** GET /admin/orders/{id}/balance-invoices: the order's balance links, oldest first (404 for another store's order). */
export async function listOrderBalances(ctx: AppContext, storeId: string, orderId: string) {
  await findOrder(ctx, storeId, orderId);
  return { invoices: (await balanceInvoicesOf(ctx.db, storeId, orderId)).map(balanceDto) };
}

/**
 * POST /admin/orders/{id}/balance-invoices/{invoiceId}/void: an open balance link stops asking.
 * Under the invoice's row lock, the lock its payment's Stripe event takes too, so a void racing a
 * payment has one winner: voided first, the payment is refunded in full when its event arrives
 * (onBalancePaymentEvent); paid first, the void is 409 (the money is the order's: refund it). A
 * repeat answers the void invoice again and changes nothing (no second timeline entry or webhook).
 * Voided: timeline `balance_voided`, audit `order.balance_voided`, `order.updated`; the order may
 * change again (one open link at a time) and its total still counts the edit (the merchant collects
 * it another way, or edits it back).
 */
export async function voidOrderBalance(ctx: AppContext, storeId: string, orderId: string, invoiceId: string, actor: Actor) {
  const row = await withTransaction(ctx, async (trx, emit) => {
    const invoice = await lockBalanceInvoice(trx, storeId, invoiceId);
    if (invoice.orderId !== orderId) throw notFound('Invoice');
    if (invoice.status === 'paid') {
      throw conflict('conflict', 'This balance is already paid: refund the order instead', [{ path: 'invoiceId', message: 'the invoice is paid' }]);
    }
    if (!(await voidBalanceInvoice(trx, invoice))) return invoice;
    await recordOrderEvent(trx, storeId, orderId, 'balance_voided', actor, { balanceInvoiceId: invoice.id, amount: Number(invoice.amount) });
    await recordAudit(ctx, trx, { storeId, action: 'order.balance_voided', resourceType: 'order', resourceId: orderId, details: { balanceInvoiceId: invoice.id, amount: Number(invoice.amount), currency: invoice.currency } });
    emit({ type: 'order.changed', storeId, orderId, change: 'updated' });
    return { ...invoice, status: 'void' as const };
  });
  return { invoice: balanceDto(row), ...(await getOrder(ctx, storeId, orderId)) };
}

/**
 * POST /admin/orders/{id}/balance-invoices/{invoiceId}/mark-paid: a balance collected another way
 * (cash, a bank transfer), its link open or already voided. Under the order's lock, then the
 * invoice's (the lock its link's payment event takes): marked first, a payment by the link arriving
 * after is refunded in full (onBalancePaymentEvent); paid by the link first, this is 409. What is
 * still owed (the amount less what later edits took back of a voided balance) becomes the order's
 * `collected_by_hand`; 409 when nothing is owed any more. A repeat answers the paid invoice again
 * and changes nothing. Timeline `paid` (byHand, reference, note), audit `order.balance_marked_paid`,
 * `order.updated`.
 */
export async function markOrderBalancePaid(ctx: AppContext, storeId: string, orderId: string, invoiceId: string, input: { reference?: string; note?: string }, actor: Actor) {
  const row = await withTransaction(ctx, async (trx, emit) => {
    await lockOrderForBalance(trx, storeId, orderId);
    const invoice = await lockBalanceInvoice(trx, storeId, invoiceId);
    if (invoice.orderId !== orderId) throw notFound('Invoice');
    if (invoice.status === 'paid') {
      if (invoice.paymentIntentId) throw conflict('conflict', 'This balance was paid through its link', [{ path: 'invoiceId', message: 'the invoice is paid by its link' }]);
      return invoice;
    }
    const owed = Number(invoice.amount) - Number(invoice.takenBack);
    if (owed <= 0) throw conflict('conflict', 'Nothing of this balance is owed: later edits took it back', [{ path: 'invoiceId', message: 'nothing is owed' }]);
    const paid = await markBalancePaid(trx, invoice, null);
    const reference = input.reference || null;
    const note = input.note || null;
    await recordBalanceCollectedByHand(trx, storeId, orderId, { amount: owed, balanceInvoiceId: invoice.id, reference, note }, actor);
    await recordAudit(ctx, trx, {
      storeId,
      action: 'order.balance_marked_paid',
      resourceType: 'order',
      resourceId: orderId,
      details: { balanceInvoiceId: invoice.id, amount: owed, currency: invoice.currency, reference }
    });
    emit({ type: 'order.changed', storeId, orderId, change: 'updated' });
    return paid;
  });
  return { invoice: balanceDto(row), ...(await getOrder(ctx, storeId, orderId)) };
}
