import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Sql, Transaction } from '../../db/transaction.js';
import { conflict, forbidden, notFound, validationFailed } from '../../errors.js';
import type { EmitEvent } from '../../platform/events/domain-events.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { lockVariants, resolveHandLines, restockUnits, takeUnits, variantsForPricing, type HandLineInput } from '../catalog/index.js';
import { formatMoney, type TaxQuote } from '../checkout/index.js';
import { invoiceUrl, openBalanceInvoice, openBalanceOf } from '../draft-orders/index.js';
import { sumTax, taxProviderOf } from '../taxes/index.js';
import { enqueueEmail } from '../email/index.js';
import { refundStripePayment } from '../payments/index.js';
import { cachedStore } from '../stores/index.js';
import type { OrderItemRow, OrderRow, RefundRow } from './dto.js';
import { deriveFulfillmentStatus } from './fulfillments.js';
import { applyFigureChange } from './order-figures.js';
import { loadOrder } from './orders.js';
import { REFUNDABLE_STATES } from './refund-amounts.js';
import { editRefundTax, priceOf, totalsOf, type CollectChoice, type Plan, type PlannedLine } from './edit-pricing.js';
import { committedRefunds, failPendingRefund, settleRefund } from './refunds.js';
import { allocateRefund } from './refund-payments.js';
import { restockOrderLines } from './restock.js';
import { recordOrderEvent, type Actor } from './timeline.js';
import { orderMailStore, trackingUrlFor } from './tracking-url.js';

/**
 * Order edits and exchanges (issue #35): lines added, quantities changed, lines removed, shipping
 * changed, units taken back for others. The new totals come from checkout's priceLines (as a
 * checkout's), the stock moves through the catalog (takeUnits, restockUnits, and the restock-once
 * path of returns), and the difference is collected (recorded as paid by hand) or refunded (a
 * refund row of source `edit`, through Stripe for a Stripe order): one transaction under the
 * variants' and then the order's locks (the lock order of every stock move), so an edit racing a
 * fulfilment, a refund or another edit waits for it and then sees what it did.
 */

export type EditLineInput = HandLineInput;

export type { CollectChoice } from './edit-pricing.js';

export interface EditInput {
  add?: EditLineInput[];
  change?: Array<{ orderItemId: string; quantity: number }>;
  remove?: string[];
  shippingRateId?: string;
  customShipping?: { title: string; price: number };
  /** How a higher total is collected on a paid order. */
  collect?: CollectChoice;
  /** The order's `version` the edit was made from: 409 when it changed since. */
  version?: number;
  notifyCustomer?: boolean;
  reason?: string;
}

export interface ExchangeInput {
  returnItems: Array<{ orderItemId: string; quantity: number; restock: boolean }>;
  newItems: Array<{ variantId: string; quantity: number }>;
  collect?: CollectChoice;
  version?: number;
  notifyCustomer?: boolean;
  reason?: string;
}

const stale = (order: OrderRow & { version: number }, version: number) =>
  conflict('conflict', `The order changed since version ${version} (it is at version ${order.version}): read it again`, [{ path: 'version', message: `order is at version ${order.version}` }]);

/** New lines (catalog's reading of variant lines, shared with drafts). */
async function newLines(db: Sql, storeId: string, lines: EditLineInput[], path: string): Promise<PlannedLine[]> {
  return (await resolveHandLines(db, storeId, lines, path)).map((line) => ({ ...line, itemId: null, billed: line.quantity }));
}

/** The order's lines after the edit or exchange, checked against what may change (409 for shipped or refunded lines). */
async function planOf(db: Sql, storeId: string, items: OrderItemRow[], kind: 'edit' | 'exchange', input: EditInput | ExchangeInput): Promise<Plan> {
  const byId = new Map(items.map((item) => [item.id, item]));
  // The kept lines price with their variant's tax class and weight as they are now (an archived variant's too).
  const variants = await variantsForPricing(
    db,
    storeId,
    items.flatMap((item) => (item.variantId ? [item.variantId] : [])),
    { archived: true }
  );
  const lines: PlannedLine[] = items.map((item) => ({
    itemId: item.id,
    variantId: item.variantId,
    productId: item.productId,
    title: item.title,
    sku: item.sku,
    unitPrice: item.unitPrice,
    quantity: item.quantity,
    billed: item.quantity - (item.exchangedQuantity ?? 0),
    taxClass: (item.variantId && variants.get(item.variantId)?.taxClass) || null,
    weightGrams: item.variantId ? (variants.get(item.variantId)?.weightGrams ?? null) : null,
    requiresShipping: item.variantId ? (variants.get(item.variantId)?.requiresShipping ?? true) : true
  }));
  const lineOf = (id: string, path: string) => {
    const item = byId.get(id);
    if (!item) throw validationFailed([{ path, message: 'not an item of this order' }]);
    return { item, line: lines.find((line) => line.itemId === id)! };
  };
  const untouched = (item: OrderItemRow, path: string) => {
    if (item.fulfilledQuantity > 0 || item.refundedQuantity > 0 || item.returnedQuantity > 0) {
      throw conflict('already_fulfilled', `${item.title} is already ${item.fulfilledQuantity > 0 ? 'fulfilled' : 'refunded or returned'}: only unfulfilled lines change`, [
        { path, message: `${item.fulfilledQuantity} fulfilled, ${item.refundedQuantity} refunded` }
      ]);
    }
  };
  const removed: string[] = [];
  const returns: Plan['returns'] = [];
  if (kind === 'edit') {
    const edit = input as EditInput;
    (edit.change ?? []).forEach((change, index) => {
      const { item, line } = lineOf(change.orderItemId, `change.${index}.orderItemId`);
      untouched(item, `change.${index}.quantity`);
      line.quantity = change.quantity;
      line.billed = change.quantity;
    });
    (edit.remove ?? []).forEach((id, index) => {
      const { item, line } = lineOf(id, `remove.${index}`);
      untouched(item, `remove.${index}`);
      line.quantity = 0;
      line.billed = 0;
      removed.push(id);
    });
    lines.push(...(await newLines(db, storeId, edit.add ?? [], 'add')));
  } else {
    const exchange = input as ExchangeInput;
    exchange.returnItems.forEach((entry, index) => {
      const { item, line } = lineOf(entry.orderItemId, `returnItems.${index}.orderItemId`);
      const left = item.quantity - item.returnedQuantity - item.refundedQuantity;
      if (entry.quantity > left) {
        throw conflict('conflict', `only ${Math.max(left, 0)} of ${item.title} can be taken back`, [{ path: `returnItems.${index}.quantity`, message: `${Math.max(left, 0)} left to take back` }]);
      }
      line.billed -= entry.quantity;
      returns.push(entry);
    });
    lines.push(...(await newLines(db, storeId, exchange.newItems, 'newItems')));
  }
  if (lines.every((line) => line.billed === 0)) throw validationFailed([{ path: kind === 'edit' ? 'remove' : 'returnItems', message: 'an order keeps at least one line: cancel it instead' }]);
  const edit = input as EditInput;
  return {
    kind,
    lines,
    removed,
    returns,
    ...(edit.shippingRateId ? { shippingRateId: edit.shippingRateId } : {}),
    ...(edit.customShipping ? { customShipping: edit.customShipping } : {}),
    ...(input.collect ? { collect: input.collect } : {}),
    ...(input.version !== undefined ? { version: input.version } : {}),
    notifyCustomer: input.notifyCustomer ?? false,
    reason: input.reason ?? null
  };
}

/** Stock moves of a plan: units each variant gains (>0, taken) or gives back (<0), exchange returns apart. */
function stockMoves(items: OrderItemRow[], plan: Plan) {
  const before = new Map(items.map((item) => [item.id, item.quantity]));
  const moves = new Map<string, { quantity: number; title: string }>();
  for (const line of plan.lines) {
    if (!line.variantId) continue;
    const delta = line.quantity - (line.itemId ? (before.get(line.itemId) ?? 0) : 0);
    if (delta === 0) continue;
    const entry = moves.get(line.variantId) ?? { quantity: 0, title: line.title };
    moves.set(line.variantId, { quantity: entry.quantity + delta, title: entry.title });
  }
  return moves;
}

type Outcome = {
  difference: number;
  totals: ReturnType<typeof totalsOf>;
  version: number;
  refund: RefundRow | null;
  order: OrderRow;
  /** The payment link of a balance collected by invoice. */
  invoice: { id: string; url: string; amount: number } | null;
};

async function commitPlan(
  ctx: AppContext,
  trx: Transaction,
  emit: EmitEvent,
  order: OrderRow & { version: number },
  items: OrderItemRow[],
  plan: Plan,
  actor: Actor,
  mayRefund: boolean,
  quote: TaxQuote | null
): Promise<Outcome> {
  const storeId = order.storeId;
  const userId = actor.type === 'user' ? actor.userId : null;
  const priced = await priceOf(ctx, trx, order, plan, { quote, noRemoteCall: true });
  const { totals, shippingMethod } = priced;
  const difference = totals.total - Number(order.total);
  const paid = REFUNDABLE_STATES.includes(order.paymentStatus);
  if (difference > 0 && paid && !plan.collect) {
    throw validationFailed([{ path: 'collect', message: `the order is paid and its total grows by ${difference}: collect it (collect: mark_paid or invoice) or change less` }]);
  }
  if (difference < 0 && paid && !mayRefund) throw forbidden(`This change refunds ${-difference}: only an owner or admin refunds`);
  const label = `order #${order.number} ${plan.kind === 'edit' ? 'edited' : 'exchanged'}`;

  // Stock: new units taken (409 naming a line without them), units of lowered or removed lines back.
  const moves = stockMoves(items, plan);
  const taken = [...moves].filter(([, move]) => move.quantity > 0).map(([variantId, move]) => ({ variantId, quantity: move.quantity, title: move.title }));
  const given = new Map([...moves].filter(([, move]) => move.quantity < 0).map(([variantId, move]) => [variantId, -move.quantity]));
  const changed: string[] = [];
  changed.push(...(await takeUnits(trx, storeId, taken, { userId, reason: label, code: 'sale', orderId: order.id })));
  changed.push(...(await restockUnits(trx, storeId, given, { userId, reason: label, code: 'cancel', orderId: order.id })));

  // Lines.
  const before = new Map(items.map((item) => [item.id, item]));
  let position = items.reduce((max, item) => Math.max(max, item.position), -1);
  const added: Array<{ id: string; title: string; quantity: number }> = [];
  const changes: Array<Record<string, unknown>> = [];
  for (const [index, line] of plan.lines.entries()) {
    const { discountAmount, taxLines } = priced.lineTax[index]!;
    const tax = { discountAmount, taxLines: JSON.stringify(taxLines), taxAmount: sumTax(taxLines) };
    if (!line.itemId) {
      const id = randomUUID();
      position += 1;
      await trx('orderItems').insert({
        id,
        orderId: order.id,
        storeId,
        productId: line.productId,
        variantId: line.variantId,
        title: line.title,
        sku: line.sku,
        quantity: line.quantity,
        unitPrice: line.unitPrice,
        lineTotal: line.unitPrice * line.quantity,
        position,
        ...tax
      });
      added.push({ id, title: line.title, quantity: line.quantity });
      changes.push({ action: 'added', orderItemId: id, variantId: line.variantId, title: line.title, quantity: line.quantity, unitPrice: line.unitPrice });
      continue;
    }
    const item = before.get(line.itemId)!;
    if (plan.removed.includes(line.itemId)) {
      await trx('orderItems').where({ storeId, id: line.itemId }).delete();
      changes.push({ action: 'removed', orderItemId: line.itemId, title: item.title, quantity: item.quantity });
    } else {
      // Every kept line's discount share and tax follow the new pricing (a line's share moves when others change).
      await trx('orderItems').where({ storeId, id: line.itemId }).update({ quantity: line.quantity, lineTotal: line.unitPrice * line.quantity, ...tax });
      if (line.quantity !== item.quantity) changes.push({ action: 'quantity', orderItemId: line.itemId, title: item.title, from: item.quantity, to: line.quantity });
    }
  }
  // Exchange returns: returned (and exchanged) as returns mark them, restocked once through the capped path.
  for (const entry of plan.returns) {
    await trx('orderItems')
      .where({ storeId, id: entry.orderItemId })
      .update({ returnedQuantity: trx.raw('returned_quantity + ?', [entry.quantity]), exchangedQuantity: trx.raw('exchanged_quantity + ?', [entry.quantity]) });
    changes.push({ action: 'returned', orderItemId: entry.orderItemId, title: before.get(entry.orderItemId)!.title, quantity: entry.quantity, restock: entry.restock });
  }
  const restock = plan.returns.filter((entry) => entry.restock);
  if (restock.length) {
    const back = await restockOrderLines(
      trx,
      storeId,
      order.id,
      restock.map(({ orderItemId, quantity }) => ({ orderItemId, quantity })),
      { userId, reason: label, code: 'return' }
    );
    changed.push(...back.backInStock);
  }
  if (plan.shippingRateId || plan.customShipping) changes.push({ action: 'shipping', from: order.shippingMethod, to: shippingMethod });

  // The order: totals, shipping, fulfilment state (new lines reopen a shipped order), version.
  const after = (await trx('orderItems').where({ storeId, orderId: order.id })) as OrderItemRow[];
  const fulfillmentStatus = deriveFulfillmentStatus(after);
  const status = order.status === 'completed' && fulfillmentStatus !== 'fulfilled' ? 'open' : order.status;
  const [updated] = (await trx('orders')
    .where({ storeId, id: order.id })
    .update({
      ...totals,
      shippingTaxLines: JSON.stringify(priced.shippingTaxLines),
      // A remote provider's new calculation: tax-sync records it in place of the order's transaction.
      ...(quote?.result.reference ? { taxReference: quote.result.reference } : {}),
      shippingMethod: shippingMethod ? JSON.stringify(shippingMethod) : null,
      fulfillmentStatus,
      status,
      version: order.version + 1,
      updatedAt: trx.fn.now()
    })
    .returning('*')) as Array<OrderRow & { version: number }>;
  await applyFigureChange(trx, order, order, updated!);

  // Money: a higher total collected by hand, a lower one refunded (never more than is left of what was paid).
  let refund: RefundRow | null = null;
  let invoice: Outcome['invoice'] = null;
  if (difference > 0 && paid && plan.collect === 'mark_paid') {
    await recordOrderEvent(trx, storeId, order.id, 'paid', actor, { amount: difference, reference: `${label}: difference collected` });
  }
  if (difference > 0 && paid && plan.collect === 'invoice') {
    // A payment link for the difference, emailed with the edit (below); paying it records the payment.
    const opened = await openBalanceInvoice(trx, { storeId, orderId: order.id, orderVersion: updated!.version, amount: difference, currency: order.currency, email: order.email, userId });
    invoice = { id: opened.id, url: invoiceUrl(ctx, opened.token), amount: difference };
    await recordOrderEvent(trx, storeId, order.id, 'balance_invoiced', actor, { amount: difference, balanceInvoiceId: opened.id });
  }
  if (difference < 0 && paid) {
    const committed = await committedRefunds(trx, storeId, order.id);
    const left = Number(order.total) - Number(order.amountRefunded) - committed.pending;
    const amount = Math.min(-difference, Math.max(left, 0));
    if (amount > 0) {
      const tax = editRefundTax(items, order, { lineTax: priced.lineTax, shippingTaxLines: priced.shippingTaxLines, taxTotal: totals.taxTotal }, amount, difference);
      const payments = await allocateRefund(trx, order, amount);
      const [row] = (await trx('orderRefunds')
        .insert({
          storeId,
          orderId: order.id,
          status: 'pending',
          source: 'edit',
          amount,
          shipping: 0,
          taxAmount: tax.taxAmount,
          taxLines: JSON.stringify(tax.taxLines),
          items: JSON.stringify([]),
          payments: JSON.stringify(payments),
          reason: plan.reason ?? label,
          notifyCustomer: false,
          userId
        })
        .returning('*')) as RefundRow[];
      refund = row!;
      // Settled now when no part goes through Stripe; else after the commit (change-order).
      if (!payments.some((part) => part.provider === 'stripe')) {
        await settleRefund(trx, emit, refund, actor, null);
        refund = (await trx('orderRefunds').where({ storeId, id: refund.id }).first()) as RefundRow;
      }
    }
  }

  await recordOrderEvent(trx, storeId, order.id, plan.kind === 'edit' ? 'edited' : 'exchanged', actor, {
    version: updated!.version,
    changes,
    difference,
    before: totalsOf(order),
    after: totals,
    ...(refund ? { refundId: refund.id, refundTax: Number(refund.taxAmount ?? 0) } : {}),
    ...(invoice ? { balanceInvoiceId: invoice.id } : {}),
    ...(plan.reason ? { reason: plan.reason } : {})
  });
  emit({ type: 'order.changed', storeId, orderId: order.id, change: 'updated' });
  if (changed.length) emit({ type: 'inventory.changed', storeId, variantIds: [...new Set(changed)] });

  // A balance to pay by link is always emailed: the link is how the customer pays it.
  if (plan.notifyCustomer || invoice) {
    const store = await orderMailStore(ctx, storeId);
    const sorted = [...after].sort((a, b) => a.position - b.position);
    const trackingUrl = trackingUrlFor(store.trackingBase, updated!.trackingToken);
    const sign = difference > 0 ? '+' : difference < 0 ? '-' : '';
    await enqueueEmail(
      ctx,
      {
        storeId,
        to: updated!.email,
        templateKey: 'order_edited',
        data: {
          store: { name: store.name },
          customer: { firstName: (updated!.shippingAddress as { firstName?: string }).firstName ?? 'there', lastName: '', email: updated!.email },
          order: {
            number: `#${updated!.number}`,
            items: sorted.map((item) => ({ title: item.title, quantity: item.quantity - (item.exchangedQuantity ?? 0) })).filter((item) => item.quantity > 0),
            total: totals.total,
            currency: updated!.currency,
            totalFormatted: formatMoney(totals.total, updated!.currency),
            trackingUrl
          },
          edit: { difference, differenceFormatted: difference === 0 ? '' : `${sign}${formatMoney(Math.abs(difference), updated!.currency)}`, paymentUrl: invoice?.url ?? '' }
        }
      },
      { trx }
    );
    await recordOrderEvent(trx, storeId, order.id, 'email_sent', actor, { template: 'order_edited', to: updated!.email });
  }
  return { difference, totals, version: updated!.version, refund, order: updated!, invoice };
}

/** Every variant a plan may move: the order's and the new lines'. */
const variantsOf = (items: OrderItemRow[], input: EditInput | ExchangeInput) => [
  ...new Set([
    ...items.flatMap((item) => (item.variantId ? [item.variantId] : [])),
    ...(('add' in input ? (input.add ?? []) : []) as EditLineInput[]).flatMap((line) => ('variantId' in line ? [line.variantId] : [])),
    ...('newItems' in input ? input.newItems.map((line) => line.variantId) : [])
  ])
];

/**
 * An edit (`kind: 'edit'`) or an exchange, previewed (`dryRun`: nothing written, no lock) or
 * committed in one transaction. A Stripe order's refund of the difference is left pending: the
 * change-order use case asks Stripe after the commit (never under a lock).
 */
export async function commitOrderChange(
  ctx: AppContext,
  storeId: string,
  orderId: string,
  kind: 'edit' | 'exchange',
  input: EditInput | ExchangeInput,
  actor: Actor,
  options: { dryRun?: boolean; mayRefund?: boolean } = {}
) {
  const current = (await ctx.db('orders').where({ storeId, id: orderId }).first()) as (OrderRow & { version: number }) | undefined;
  if (!current) throw notFound('Order');
  const refuse = (order: OrderRow) => {
    if (order.status === 'cancelled') throw conflict('conflict', 'This order is cancelled: it can no longer change', [{ path: 'orderId', message: 'order is cancelled' }]);
  };
  // One balance link at a time: the amount it asks is the difference of the edit that opened it.
  const unpaid = async (db: Sql) => {
    const open = await openBalanceOf(db, storeId, orderId);
    if (open) {
      throw conflict('conflict', `A payment link for ${open.amount} of this order is still unpaid: it changes again once that is paid`, [{ path: 'orderId', message: 'balance invoice open' }]);
    }
  };
  refuse(current);
  await unpaid(ctx.db);
  const currentItems = (await ctx.db('orderItems').where({ storeId, orderId }).orderBy('position')) as OrderItemRow[];
  if (options.dryRun) {
    if (input.version !== undefined && input.version !== current.version) throw stale(current, input.version);
    const plan = await planOf(ctx.db, storeId, currentItems, kind, input);
    const { totals } = await priceOf(ctx, ctx.db, current, plan);
    return { preview: { edit: { difference: totals.total - Number(current.total), totals, before: totalsOf(current), version: current.version } } };
  }
  // A remote tax provider (Stripe Tax) is asked now, on the order as it is, never under the locks
  // below; there the same taxable amounts reuse its answer (different ones: 409, the order changed).
  // It failing is 503 tax_provider_unavailable before anything is written.
  const store = await cachedStore(ctx, storeId);
  let quote: TaxQuote | null = null;
  if (!taxProviderOf(current.taxProvider ?? store.taxProvider).local) {
    quote = (await priceOf(ctx, ctx.db, current, await planOf(ctx.db, storeId, currentItems, kind, input))).quote;
  }
  const outcome = await withTransaction(ctx, async (trx, emit) => {
    await lockVariants(trx, storeId, variantsOf(currentItems, input));
    const order = (await trx('orders').where({ storeId, id: orderId }).forUpdate().first()) as OrderRow & { version: number };
    refuse(order);
    await unpaid(trx);
    if (input.version !== undefined && input.version !== order.version) throw stale(order, input.version);
    const items = (await trx('orderItems').where({ storeId, orderId }).orderBy('position')) as OrderItemRow[];
    const plan = await planOf(trx, storeId, items, kind, input);
    return commitPlan(ctx, trx, emit, order, items, plan, actor, options.mayRefund ?? true, quote);
  });
  return { outcome };
}

/** The answer to a committed change: the edit (with its refund as it stands now) and the order. */
export async function changeAnswer(
  ctx: AppContext,
  storeId: string,
  orderId: string,
  outcome: { difference: number; totals: unknown; version: number; invoice?: Outcome['invoice'] },
  refund: RefundRow | null
) {
  const order = (await loadOrder(ctx, ctx.db, storeId, orderId)).dto;
  return {
    edit: {
      difference: outcome.difference,
      totals: outcome.totals,
      version: outcome.version,
      refund: refund ? { id: refund.id, status: refund.status, amount: Number(refund.amount), taxAmount: Number(refund.taxAmount ?? 0) } : null,
      invoice: outcome.invoice ? { id: outcome.invoice.id, url: outcome.invoice.url, amount: outcome.invoice.amount, status: 'open' as const } : null
    },
    order
  };
}
