import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Transaction } from '../../db/transaction.js';
import { forbidden, validationFailed } from '../../errors.js';
import type { EmitEvent } from '../../platform/events/domain-events.js';
import { restockUnits, takeUnits } from '../catalog/index.js';
import type { TaxQuote } from '../checkout/index.js';
import { invoiceUrl, openBalanceInvoice, takeBackUncollected } from '../draft-orders/index.js';
import { sumTax } from '../taxes/index.js';
import type { OrderItemRow, OrderRow, RefundRow } from './dto.js';
import { emailEditSummary } from './edit-email.js';
import { stockMoves } from './edit-plan.js';
import { editRefundTax, priceOf, totalsOf, type Plan } from './edit-pricing.js';
import { deriveFulfillmentStatus } from './fulfillments.js';
import { applyFigureChange } from './order-figures.js';
import { REFUNDABLE_STATES, refundableOf } from './refund-amounts.js';
import { committedRefunds, settleRefund } from './refunds.js';
import { allocateRefund } from './refund-payments.js';
import { restockOrderLines } from './restock.js';
import { recordOrderEvents, type Actor } from './timeline.js';

/**
 * A planned edit or exchange (edit-plan.ts) applied in the caller's transaction, under the
 * variants' and the order's locks: priced again there (as a checkout; a remote provider's quote
 * taken before the locks is reused), stock taken or given back, the lines written, the order's
 * totals, state and version, the difference collected (by hand or by a payment link) or refunded,
 * the timeline with the actor, `order.updated`, and the customer's summary when asked.
 */

export type Outcome = {
  difference: number;
  totals: ReturnType<typeof totalsOf>;
  version: number;
  refund: RefundRow | null;
  order: OrderRow;
  /** The order's lines as the change left them. */
  items: OrderItemRow[];
  /** The payment link of a balance collected by invoice. */
  invoice: { id: string; url: string; amount: number } | null;
};

export async function commitPlan(
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

  // Lines: the new ones in one insert; a kept line written only when its quantity, discount share or
  // tax moved (a line's share moves when others change); `rows` follows every write, so the
  // order's state below needs no second read of its items.
  const before = new Map(items.map((item) => [item.id, item]));
  const rows = new Map(before);
  let position = items.reduce((max, item) => Math.max(max, item.position), -1);
  const inserts: Array<Record<string, unknown>> = [];
  const changes: Array<Record<string, unknown>> = [];
  for (const [index, line] of plan.lines.entries()) {
    const { discountAmount, taxLines } = priced.lineTax[index]!;
    const tax = { discountAmount, taxLines: JSON.stringify(taxLines), taxAmount: sumTax(taxLines) };
    if (!line.itemId) {
      const id = randomUUID();
      position += 1;
      inserts.push({
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
      changes.push({ action: 'added', orderItemId: id, variantId: line.variantId, title: line.title, quantity: line.quantity, unitPrice: line.unitPrice });
      continue;
    }
    const item = before.get(line.itemId)!;
    if (plan.removed.includes(line.itemId)) {
      await trx('orderItems').where({ storeId, id: line.itemId }).delete();
      rows.delete(line.itemId);
      changes.push({ action: 'removed', orderItemId: line.itemId, title: item.title, quantity: item.quantity });
      continue;
    }
    const moved =
      line.quantity !== item.quantity ||
      line.unitPrice * line.quantity !== Number(item.lineTotal) ||
      discountAmount !== Number(item.discountAmount ?? 0) ||
      tax.taxAmount !== Number(item.taxAmount ?? 0) ||
      tax.taxLines !== JSON.stringify(item.taxLines ?? []);
    if (moved) {
      const [row] = (await trx('orderItems').where({ storeId, id: line.itemId }).update({ quantity: line.quantity, lineTotal: line.unitPrice * line.quantity, ...tax }).returning('*')) as OrderItemRow[];
      rows.set(line.itemId, row!);
    }
    if (line.quantity !== item.quantity) changes.push({ action: 'quantity', orderItemId: line.itemId, title: item.title, from: item.quantity, to: line.quantity });
  }
  if (inserts.length) for (const row of (await trx('orderItems').insert(inserts).returning('*')) as OrderItemRow[]) rows.set(row.id, row);
  // Exchange returns: returned (and exchanged) as returns mark them, restocked once through the capped path.
  for (const entry of plan.returns) {
    const [row] = (await trx('orderItems')
      .where({ storeId, id: entry.orderItemId })
      .update({ returnedQuantity: trx.raw('returned_quantity + ?', [entry.quantity]), exchangedQuantity: trx.raw('exchanged_quantity + ?', [entry.quantity]) })
      .returning('*')) as OrderItemRow[];
    rows.set(entry.orderItemId, row!);
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
  // The restock-once path of returns writes the lines itself: read them again only then.
  const after = restock.length
    ? ((await trx('orderItems').where({ storeId, orderId: order.id }).orderBy('position')) as OrderItemRow[])
    : [...rows.values()].sort((a, b) => a.position - b.position);
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
      // Money collected by hand is a payment of its own: refunds give it back by hand (refund-payments.ts).
      ...(difference > 0 && paid && plan.collect === 'mark_paid' ? { collectedByHand: trx.raw('collected_by_hand + ?', [difference]) } : {}),
      version: order.version + 1,
      updatedAt: trx.fn.now()
    })
    .returning('*')) as Array<OrderRow & { version: number }>;
  await applyFigureChange(trx, order, order, updated!);

  // Money: a higher total collected by hand, a lower one refunded (never more than is left of what was paid).
  let refund: RefundRow | null = null;
  let invoice: Outcome['invoice'] = null;
  // The change's own timeline entries go in with its `edited` entry, one statement.
  const timeline: Array<{ type: 'paid' | 'balance_invoiced' | 'edited' | 'exchanged'; data: Record<string, unknown> }> = [];
  if (difference > 0 && paid && plan.collect === 'mark_paid') {
    timeline.push({ type: 'paid', data: { amount: difference, reference: `${label}: difference collected` } });
  }
  if (difference > 0 && paid && plan.collect === 'invoice') {
    // A payment link for the difference, emailed with the edit (below); paying it records the payment.
    const opened = await openBalanceInvoice(trx, { storeId, orderId: order.id, orderVersion: updated!.version, amount: difference, currency: order.currency, email: order.email, userId });
    invoice = { id: opened.id, url: invoiceUrl(ctx, opened.token), amount: difference };
    timeline.push({ type: 'balance_invoiced', data: { amount: difference, balanceInvoiceId: opened.id } });
  }
  let uncollectedTakenBack = 0;
  if (difference < 0 && paid) {
    const committed = await committedRefunds(trx, storeId, order.id);
    // What the total held and was never paid (a voided balance link) goes first: it is nobody's to
    // refund. The rest is refunded, never more than is left of what was paid.
    uncollectedTakenBack = await takeBackUncollected(trx, storeId, order.id, -difference);
    const amount = Math.min(-difference - uncollectedTakenBack, Math.max(refundableOf(order, committed), 0));
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

  timeline.push({ type: plan.kind === 'edit' ? 'edited' : 'exchanged', data: {
    version: updated!.version,
    changes,
    difference,
    before: totalsOf(order),
    after: totals,
    ...(refund ? { refundId: refund.id, refundTax: Number(refund.taxAmount ?? 0) } : {}),
    ...(invoice ? { balanceInvoiceId: invoice.id } : {}),
    ...(uncollectedTakenBack ? { uncollectedTakenBack } : {}),
    ...(plan.reason ? { reason: plan.reason } : {})
  } });
  await recordOrderEvents(trx, storeId, order.id, actor, timeline);
  emit({ type: 'order.changed', storeId, orderId: order.id, change: 'updated' });
  if (changed.length) emit({ type: 'inventory.changed', storeId, variantIds: [...new Set(changed)] });

  // A balance to pay by link is always emailed: the link is how the customer pays it.
  if (plan.notifyCustomer || invoice) await emailEditSummary(ctx, trx, updated!, after, { difference, total: totals.total, paymentUrl: invoice?.url ?? '' }, actor);
  return { difference, totals, version: updated!.version, refund, order: updated!, items: after, invoice };
}
