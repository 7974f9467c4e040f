import type { AppContext } from '../../context.js';
import type { Sql } from '../../db/transaction.js';
import { conflict, notFound } from '../../errors.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { lockVariants } from '../catalog/index.js';
import type { TaxQuote } from '../checkout/index.js';
import { openBalanceOf } from '../draft-orders/index.js';
import { taxProviderOf } from '../taxes/index.js';
import { cachedStore } from '../stores/index.js';
import type { OrderItemRow, OrderRow, RefundRow } from './dto.js';
import { commitPlan, type Outcome } from './edit-commit.js';
import { planOf, variantsOf, type EditInput, type ExchangeInput } from './edit-plan.js';
import { priceOf, totalsOf } from './edit-pricing.js';
import { loadOrder, orderDtoOf } from './orders.js';
import type { Actor } from './timeline.js';

/**
 * Order edits and exchanges (issue #35): lines added, quantities changed, lines removed, shipping
 * changed, units taken back for others. The new totals come from checkout's priceLines (as a
 * checkout's), the stock moves through the catalog (takeUnits, restockUnits, and the restock-once
 * path of returns), and the difference is collected (recorded as paid by hand) or refunded (a
 * refund row of source `edit`, through Stripe for a Stripe order): one transaction under the
 * variants' and then the order's locks (the lock order of every stock move), so an edit racing a
 * fulfilment, a refund or another edit waits for it and then sees what it did.
 */

export type { CollectChoice } from './edit-pricing.js';
export type { EditInput, EditLineInput, ExchangeInput } from './edit-plan.js';

const stale = (order: OrderRow & { version: number }, version: number) =>
  conflict('conflict', `The order changed since version ${version} (it is at version ${order.version}): read it again`, [{ path: 'version', message: `order is at version ${order.version}` }]);

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
  const currentItems = (await ctx.db('orderItems').where({ storeId, orderId }).orderBy('position')) as OrderItemRow[];
  if (options.dryRun) {
    await unpaid(ctx.db);
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

/**
 * The answer to a committed change: the edit (with its refund as it stands now) and the order.
 * `asCommitted`: the order and its lines as the change's transaction left them, when nothing
 * changed them since (no refund asked of Stripe, no tax transaction replaced): only its
 * fulfilments and refunds are read then, not the order again.
 */
export async function changeAnswer(
  ctx: AppContext,
  storeId: string,
  orderId: string,
  outcome: { difference: number; totals: unknown; version: number; invoice?: Outcome['invoice'] },
  refund: RefundRow | null,
  asCommitted: { order: OrderRow; items: OrderItemRow[] } | null = null
) {
  const order = asCommitted ? await orderDtoOf(ctx, asCommitted.order, asCommitted.items) : (await loadOrder(ctx, ctx.db, storeId, orderId)).dto;
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
