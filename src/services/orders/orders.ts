import { PAYMENT_STATES } from '../payments/index.js';
import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';
import { containsPattern } from '../../db/like-patterns.js';
import { notFound } from '../../errors.js';
import { keysetPage, sortOrder, type ListSorts, type PageRequest } from '../../platform/pagination.js';
import { toOrderDto, toOrderSummaryDto, type FulfillmentRow, type OrderItemRow, type OrderRow, type RefundRow } from './dto.js';
import { trackingUrlBase, trackingUrlFor } from './tracking-url.js';
import { readTogether, type Sql } from '../../db/transaction.js';

export const ORDER_STATUSES = ['open', 'completed', 'cancelled'] as const;
/** The payment state machine's states (services/payments/payment-state.ts). */
export const PAYMENT_STATUSES = PAYMENT_STATES;
export const FULFILLMENT_STATUSES = ['unfulfilled', 'partially_fulfilled', 'fulfilled'] as const;
/** `?status=` takes any order, payment or fulfilment status and filters the matching column. */
export const ORDER_STATUS_FILTERS = [...ORDER_STATUSES, ...PAYMENT_STATUSES, 'payment_pending', ...FULFILLMENT_STATUSES] as const;
export type OrderStatusFilter = (typeof ORDER_STATUS_FILTERS)[number];

function applyStatus(query: Knex.QueryBuilder, status: OrderStatusFilter) {
  if ((ORDER_STATUSES as readonly string[]).includes(status)) query.where('status', status);
  else if (status === 'payment_pending' || status === 'pending') query.where('paymentStatus', 'pending');
  else if ((PAYMENT_STATUSES as readonly string[]).includes(status)) query.where('paymentStatus', status);
  else query.where('fulfillmentStatus', status);
}

export interface OrderListFilters {
  status?: OrderStatusFilter;
  paymentStatus?: (typeof PAYMENT_STATUSES)[number];
  fulfillmentStatus?: (typeof FULFILLMENT_STATUSES)[number];
  q?: string;
  /** One of `sortValues(ORDER_SORTS)`; `ORDER_DEFAULT_SORT` when absent. */
  sort?: string;
}

/** The admin list's sorts (`?sort=`, `-` for descending), each ending with the id; `number` is unique per store (its own index). */
export const ORDER_SORTS: ListSorts = {
  createdAt: { column: 'createdAt' },
  number: { column: 'number', kinds: ['integer', 'uuid'] },
  total: { column: 'total', kinds: ['bigint', 'uuid'] }
};
export const ORDER_DEFAULT_SORT = '-createdAt';

/** Newest first unless `sort` says otherwise, keyset pages; filters combine. `q` is an order number (with or without `#`) or part of the email. */
export async function listOrders(ctx: AppContext, storeId: string, filters: OrderListFilters, page: PageRequest) {
  const query = ctx.db('orders').where({ storeId });
  if (filters.status) applyStatus(query, filters.status);
  if (filters.paymentStatus) query.where('paymentStatus', filters.paymentStatus);
  if (filters.fulfillmentStatus) query.where('fulfillmentStatus', filters.fulfillmentStatus);
  const q = filters.q?.trim();
  if (q) {
    const digits = q.replace(/^#/, '');
    if (/^\d{1,9}$/.test(digits)) query.where((w) => w.where('number', Number(digits)).orWhereRaw('lower(email) like ?', [containsPattern(q)]));
    else query.whereRaw('lower(email) like ?', [containsPattern(q)]);
  }
  const order = sortOrder(ORDER_SORTS, filters.sort ?? ORDER_DEFAULT_SORT, ORDER_DEFAULT_SORT);
  const result = await keysetPage<OrderRow>(query, order, page);
  return { orders: result.items.map(toOrderSummaryDto), nextCursor: result.nextCursor };
}

export async function loadOrder(ctx: AppContext, db: Sql, storeId: string, orderId: string) {
  // The order with its items in position order and its fulfilments in time order.
  const [[order, items, fulfillments, refunds], base] = await Promise.all([
    readTogether<[OrderRow | undefined, OrderItemRow[], FulfillmentRow[], RefundRow[]]>(db, [
      () => db('orders').where({ storeId, id: orderId }).first(),
      () => db('orderItems').where({ storeId, orderId }).orderBy('position'),
      () => db('fulfillments').where({ storeId, orderId }).orderBy(['createdAt', 'id']),
      () => db('orderRefunds').where({ storeId, orderId }).orderBy(['createdAt', 'id'])
    ]),
    trackingUrlBase(ctx, storeId)
  ]);
  if (!order) throw notFound('Order');
  return { row: order, items, fulfillments, dto: toOrderDto(order, items, fulfillments, trackingUrlFor(base, order.trackingToken), refunds) };
}

/** An order's DTO from its row and lines in hand: its fulfilments and refunds read (together). */
export async function orderDtoOf(ctx: AppContext, order: OrderRow, items: OrderItemRow[]) {
  const [fulfillments, refunds, base] = await Promise.all([
    ctx.db('fulfillments').where({ storeId: order.storeId, orderId: order.id }).orderBy(['createdAt', 'id']) as Promise<FulfillmentRow[]>,
    ctx.db('orderRefunds').where({ storeId: order.storeId, orderId: order.id }).orderBy(['createdAt', 'id']) as Promise<RefundRow[]>,
    trackingUrlBase(ctx, order.storeId)
  ]);
  return toOrderDto(order, items, fulfillments, trackingUrlFor(base, order.trackingToken), refunds);
}

export async function getOrder(ctx: AppContext, storeId: string, orderId: string) {
  return { order: (await loadOrder(ctx, ctx.db, storeId, orderId)).dto };
}

/** A customer's latest orders, newest first, for the customer page (one indexed query). */
export async function recentOrdersOfCustomer(ctx: AppContext, storeId: string, customerId: string, limit = 5) {
  const rows: OrderRow[] = await ctx
    .db('orders')
    .where({ storeId, customerId })
    .orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit);
  return rows.map(toOrderSummaryDto);
}
