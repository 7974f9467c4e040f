import { randomUUID } from 'node:crypto';
import Joi from 'joi';
import type { StripeEvent } from '../adapters/payments/index.js';
import type { AppContext } from '../context.js';
import { runStatements } from '../db/prepared-statements.js';
import type { Transaction } from '../db/transaction.js';
import { AppError, conflict } from '../errors.js';
import { formatMoney } from '../services/checkout/index.js';
import { customerBindings, upsertOrderCustomer } from '../services/customers/index.js';
import {
  draftOfToken,
  findDraftPayment,
  holdDraftStock,
  invoiceUrl,
  lockDraft,
  markDraftCompleted,
  markDraftInvoiced,
  newInvoiceToken,
  recordDraftPayment,
  setDraftPaymentStatus,
  type DraftRow
} from '../services/draft-orders/index.js';
import { emailInsert } from '../services/email/index.js';
import {
  draftOrderForEmail,
  ensureOrderNumberSequence,
  insertedOrder,
  loadOrder,
  newTrackingToken,
  orderConfirmationEmail,
  orderDtoBeforeInsert,
  orderInsert,
  orderMailStore,
  recordOrderEvent,
  recordOrderEvents,
  toOrderDto,
  trackingUrlFor,
  WEBHOOK,
  type Actor,
  type NewOrder
} from '../services/orders/index.js';
import { applied, connectedStripeAccount, ignored, refundStripePayment, startStripePayment, type EventOutcome } from '../services/payments/index.js';
import { orderEventsCall, type WebhookTopic } from '../services/webhooks/index.js';
import { withTransaction } from '../platform/with-transaction.js';
import { syncTaxWithProvider } from './tax-transactions.js';

export const DRAFT_PAYMENT_CHOICES = ['mark_paid', 'pending', 'invoice'] as const;
export type DraftPaymentChoice = (typeof DRAFT_PAYMENT_CHOICES)[number];

type MailStore = { name: string; trackingBase: string };

/**
 * Makes the order of a locked draft whose stock is held: the customer made or counted (customers),
 * the order, its items, its confirmation email and its webhook events (orders, email, webhooks, in
 * the transaction), the draft completed, the timeline told who did it.
 */
async function orderFromDraft(
  ctx: AppContext,
  trx: Transaction,
  row: DraftRow,
  store: MailStore,
  sequence: string,
  payment: { provider: 'manual' | 'stripe'; status: 'pending' | 'paid'; paymentIntentId: string | null },
  actor: Actor
): Promise<{ id: string; number: number; dto: ReturnType<typeof toOrderDto> }> {
  const storeId = row.storeId;
  const newOrder: NewOrder = {
    storeId,
    checkoutSessionId: null as unknown as string,
    email: row.email!,
    currency: row.currency,
    lines: row.lines.map((line) => ({
      variantId: line.variantId,
      productId: line.productId,
      title: line.title,
      sku: line.sku,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      lineTotal: Number(line.lineTotal),
      discountAmount: line.discountAmount ?? 0,
      taxLines: line.taxLines ?? []
    })) as NewOrder['lines'],
    subtotal: Number(row.subtotal),
    discountTotal: Number(row.discountTotal),
    shippingTotal: Number(row.shippingTotal),
    total: Number(row.total),
    // The draft's tax as it was priced (priceLines, as a checkout's): the order carries it as a checkout's order does.
    taxTotal: Number(row.taxTotal ?? 0),
    pricesIncludeTax: Boolean(row.pricesIncludeTax),
    shippingTaxLines: row.shippingTaxLines ?? [],
    taxProvider: row.taxProvider ?? null,
    taxReference: row.taxReference ?? null,
    discountCode: row.discountCode ?? (row.manualDiscount ? 'manual' : null),
    shippingMethod: row.shipping ? { id: row.shipping.rateId ?? 'custom', name: row.shipping.title, price: Number(row.shippingTotal) } : null,
    shippingAddress: row.shippingAddress!,
    billingAddress: null,
    paymentProvider: payment.provider,
    paymentIntentId: payment.paymentIntentId,
    paymentStatus: payment.status
  };
  const orderId = randomUUID();
  const customer = await upsertOrderCustomer(trx, customerBindings(newOrder));
  const trackingToken = newTrackingToken();
  const trackingUrl = trackingUrlFor(store.trackingBase, trackingToken);
  const draft = draftOrderForEmail(newOrder, orderId, trackingToken);
  const email = emailInsert(ctx, orderConfirmationEmail(store.name, draft.order, draft.items, { firstName: customer.firstName, lastName: customer.lastName }, trackingUrl));
  const keys = { orderId, customerId: customer.id, trackingToken, emailOutboxId: email.outboxId, itemIds: newOrder.lines.map(() => randomUUID()) };
  const topics: WebhookTopic[] = payment.status === 'paid' ? ['order.created', 'order.paid'] : ['order.created'];
  const [, inserted] = await runStatements(trx, [email.call, orderInsert(newOrder, { ...keys, sequence }), orderEventsCall(orderId, topics, orderDtoBeforeInsert(newOrder, keys, trackingUrl))]);
  const { order, items } = insertedOrder(inserted!);
  await markDraftCompleted(trx, row, order.id);
  // The timeline's entries in one statement: completed, and paid when it was.
  await recordOrderEvents(trx, storeId, order.id, actor, [
    { type: 'draft_completed', data: { draftOrderId: row.id, payment: payment.provider === 'stripe' ? 'invoice' : payment.status === 'paid' ? 'mark_paid' : 'pending' } },
    ...(payment.status === 'paid' ? [{ type: 'paid' as const, data: payment.paymentIntentId ? { paymentIntentId: payment.paymentIntentId } : { reference: `draft order ${row.id}` } }] : [])
  ]);
  // The answer is the order as inserted (nothing else in this transaction changes it; a new order has no fulfilment or refund), as a checkout's.
  return { id: order.id, number: order.number, dto: toOrderDto(order, items, [], trackingUrl) };
}

/** A remote provider's calculation (Stripe Tax) becomes the order's tax transaction after the commit, as a checkout's does. */
async function recordDraftTax(ctx: AppContext, row: DraftRow, order: { id: string; number: number }) {
  // Stripe Tax: the draft's calculation becomes the order's transaction after the commit, retried by a job when refused.
  if (row.taxProvider && row.taxReference) await syncTaxWithProvider(ctx, { storeId: row.storeId, orderId: order.id });
}

function invoiceEmail(row: DraftRow, storeName: string, url: string) {
  const address = (row.shippingAddress ?? {}) as { firstName?: string; lastName?: string };
  return {
    storeId: row.storeId,
    to: row.email!,
    templateKey: 'order_invoice',
    data: {
      store: { name: storeName },
      customer: { firstName: address.firstName ?? 'there', lastName: address.lastName ?? '', email: row.email },
      invoice: {
        url,
        total: Number(row.total),
        currency: row.currency,
        totalFormatted: formatMoney(Number(row.total), row.currency),
        items: row.lines.map((line) => ({ title: line.title, quantity: line.quantity }))
      }
    }
  };
}

/**
 * Completes a draft (POST /admin/draft-orders/{id}/complete): its stock is held now (409
 * `insufficient_inventory` naming a line that lacks it), then either the order is made at once
 * (`mark_paid`: a manual payment collected; `pending`: to be collected), or the draft is invoiced
 * (`invoice`: the customer is emailed a link whose payment makes the order). One transaction.
 */
export async function completeDraftOrder(ctx: AppContext, storeId: string, draftId: string, payment: DraftPaymentChoice, actor: Actor) {
  const userId = actor.type === 'user' ? actor.userId : null;
  const store = await orderMailStore(ctx, storeId);
  const sequence = await ensureOrderNumberSequence(ctx.db, storeId);
  const result = await withTransaction(ctx, async (trx, emit) => {
    const row = await lockDraft(trx, storeId, draftId);
    const soldOut = await holdDraftStock(trx, row, userId);
    if (soldOut.length) emit({ type: 'inventory.changed', storeId, variantIds: soldOut });
    if (payment === 'invoice') {
      const { token, hash } = newInvoiceToken(storeId);
      const url = invoiceUrl(ctx, token);
      await markDraftInvoiced(trx, row, hash);
      await runStatements(trx, [emailInsert(ctx, invoiceEmail(row, store.name, url)).call]);
      return { invoice: { url } };
    }
    const order = await orderFromDraft(ctx, trx, row, store, sequence, { provider: 'manual', status: payment === 'mark_paid' ? 'paid' : 'pending', paymentIntentId: null }, actor);
    return { order, row };
  });
  if ('invoice' in result) return result;
  // A provider's transaction (Stripe Tax) is recorded on the order after the commit: read it again then.
  if (!(result.row.taxProvider && result.row.taxReference)) return { order: result.order.dto };
  await recordDraftTax(ctx, result.row, result.order);
  return { order: (await loadOrder(ctx, ctx.db, storeId, result.order.id)).dto };
}

/**
 * The public invoice's pay button: a Stripe PaymentIntent for exactly the draft's total, on the
 * store's account, its metadata naming the draft. Each call starts a new one (two tabs, two
 * intents): whichever succeeds first makes the order, a later one is refunded in full
 * (onDraftPaymentEvent). 409 once the draft is paid: nothing more is charged.
 */
export async function startInvoicePayment(ctx: AppContext, token: string) {
  const row = await draftOfToken(ctx.db, token);
  if (row.status !== 'invoiced') throw conflict('conflict', 'This invoice is already paid', [{ path: 'token', message: 'the invoice is paid' }]);
  const intent = await startStripePayment(ctx, row.storeId, {
    amount: Number(row.total),
    currency: row.currency,
    email: row.email,
    metadata: { draftOrderId: row.id },
    idempotencyKey: `draft-order:${row.id}:payment:${randomUUID()}`
  });
  await recordDraftPayment(ctx.db, row, intent.id, Number(row.total));
  return { payment: { provider: 'stripe' as const, paymentIntentId: intent.id, clientSecret: intent.clientSecret, amount: Number(row.total), currency: row.currency } };
}

const intentObject = Joi.object({
  id: Joi.string().max(255).required(),
  amount: Joi.number().integer().min(0).required(),
  currency: Joi.string().max(10).required(),
  status: Joi.string().max(64).required(),
  metadata: Joi.object({ storeId: Joi.string().uuid().required(), draftOrderId: Joi.string().uuid().required() }).unknown(true).required()
}).unknown(true);

/** Whether a PaymentIntent event is about a draft order's invoice (its metadata names one). */
export const paysDraftOrder = (event: StripeEvent) => Boolean((event.data.object as { metadata?: Record<string, string> | null }).metadata?.draftOrderId);

/**
 * `payment_intent.succeeded` for an invoice: the first payment of the draft's total makes its order
 * (under the draft's lock, once, whichever event comes first or again); a payment arriving after
 * the draft was paid by another intent is refunded in full on Stripe and recorded `refunded` on
 * the draft. Other intent events change nothing (the draft stays invoiced; its stock stays held).
 */
export async function onDraftPaymentEvent(ctx: AppContext, event: StripeEvent): Promise<EventOutcome> {
  const { value, error } = intentObject.validate(event.data.object);
  if (error) return ignored(`malformed payment_intent: ${error.message}`);
  const intent = value as { id: string; amount: number; currency: string; status: string; metadata: { storeId: string; draftOrderId: string } };
  if (event.type !== 'payment_intent.succeeded') return ignored(`${event.type} changes no draft order`);
  const { storeId, draftOrderId } = intent.metadata;
  const account = await connectedStripeAccount(ctx.db, storeId);
  if (!account || event.account !== account) return ignored("sent for another account than the store's connected account");
  const store = await orderMailStore(ctx, storeId);
  const sequence = await ensureOrderNumberSequence(ctx.db, storeId);
  const outcome = await withTransaction(ctx, async (trx) => {
    const row = await lockDraft(trx, storeId, draftOrderId).catch((error: unknown) => {
      if (error instanceof AppError && error.status === 404) return null;
      throw error;
    });
    // Deleted while its link was being paid: the stock went back, so the money goes back too.
    if (!row) return { kind: 'refund' as const, row: null };
    if (intent.amount !== Number(row.total) || intent.currency.toLowerCase() !== row.currency.toLowerCase()) {
      return { kind: 'ignored' as const, reason: `amount ${intent.amount} ${intent.currency} does not match the draft's ${row.total} ${row.currency}` };
    }
    await recordDraftPayment(trx, row, intent.id, intent.amount);
    const payment = await findDraftPayment(trx, storeId, intent.id);
    if (payment?.status === 'kept') return { kind: 'ignored' as const, reason: 'this payment already made the order' };
    if (payment?.status === 'refunded') return { kind: 'ignored' as const, reason: 'this payment was already refunded' };
    if (row.status === 'invoiced') {
      const order = await orderFromDraft(ctx, trx, row, store, sequence, { provider: 'stripe', status: 'paid', paymentIntentId: intent.id }, WEBHOOK);
      await setDraftPaymentStatus(trx, storeId, intent.id, 'kept');
      return { kind: 'created' as const, orderId: order.id, order, row };
    }
    return { kind: 'refund' as const, row };
  });
  if (outcome.kind === 'ignored') return ignored(outcome.reason);
  if (outcome.kind === 'created') await recordDraftTax(ctx, outcome.row, outcome.order);
  if (outcome.kind === 'created') return applied(`draft order ${draftOrderId} paid: order ${outcome.orderId}`);
  // Paid twice (or paid after the draft was deleted): this payment goes back, whole.
  const refund = await refundStripePayment(ctx, storeId, {
    paymentIntentId: intent.id,
    amount: intent.amount,
    metadata: { storeId, draftOrderId, reason: 'duplicate invoice payment' },
    idempotencyKey: `draft-order-duplicate:${intent.id}`
  });
  if (outcome.row) await setDraftPaymentStatus(ctx.db, storeId, intent.id, 'refunded', refund.id);
  if (outcome.row?.orderId) {
    await recordOrderEvent(ctx.db, storeId, outcome.row.orderId, 'duplicate_payment_refunded', WEBHOOK, { paymentIntentId: intent.id, amount: intent.amount, stripeRefundId: refund.id });
  }
  return applied(`draft order ${draftOrderId} ${outcome.row ? 'already paid' : 'deleted'}: payment ${intent.id} refunded`);
}
