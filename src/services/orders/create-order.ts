import { randomBytes } from 'node:crypto';
import type { Sql } from '../../db/transaction.js';
import { camelCase } from '../../db/column-names.js';
import { defineStatement, type StatementCall, type StatementResult } from '../../db/prepared-statements.js';
import { setPayloadFieldSql } from '../../platform/outbox/enqueue.js';
import type { OrderSnapshotLine } from '../checkout/index.js';
import { toOrderDto, type OrderItemRow, type OrderRow } from './dto.js';
import type { TaxLine } from '../taxes/index.js';



export interface NewOrder {
  storeId: string;
  checkoutSessionId: string;
  email: string;
  currency: string;
  lines: OrderSnapshotLine[];
  subtotal: number;
  discountTotal: number;
  shippingTotal: number;
  taxTotal: number;
  total: number;
  pricesIncludeTax: boolean;
  shippingTaxLines: TaxLine[];
  taxProvider: string | null;
  taxReference: string | null;
  discountCode: string | null;
  shippingMethod: { id: string; name: string; price: number } | null;
  shippingAddress: Record<string, any>;
  billingAddress: Record<string, any> | null;
  paymentProvider: string;
  paymentIntentId: string | null;
  paymentStatus: 'pending' | 'authorized' | 'paid';
}

const DATES = new Set(['createdAt', 'updatedAt']);

/** A `row_to_json` object (snake_case keys, ISO date strings) as the row knex would have returned. */
function fromJson<T>(value: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = camelCase(key);
    out[name] = DATES.has(name) && typeof v === 'string' ? new Date(v) : v;
  }
  return out as T;
}

export const newTrackingToken = () => randomBytes(24).toString('base64url');

/** The order as the confirmation email needs it, before its number is drawn (the insert fills that in). */
export function draftOrderForEmail(order: NewOrder, orderId: string, trackingToken: string) {
  const draft = {
    id: orderId,
    storeId: order.storeId,
    number: 0,
    email: order.email,
    currency: order.currency,
    subtotal: order.subtotal,
    total: order.total,
    trackingToken,
    shippingAddress: order.shippingAddress
  } as unknown as OrderRow;
  const items = order.lines.map((line) => ({ ...line, fulfilledQuantity: 0 })) as unknown as OrderItemRow[];
  return { order: draft, items };
}

export interface OrderKeys {
  orderId: string;
  customerId: string;
  trackingToken: string;
  /** The confirmation email's outbox row: its `order.number` is set from the drawn number. */
  emailOutboxId?: string;
  /** The store's order number sequence (ensureOrderNumberSequence). */
  sequence: string;
  /** The items' ids, in line order (drawn before the insert, so the order's DTO is known before it: orderDtoBeforeInsert). */
  itemIds: string[];
}

/**
 * The order's admin DTO as the insert will make it, before the insert runs: what only the
 * insert draws (the number, created_at and updated_at) are left 0 / epoch for SQL to fill in
 * (webhooks' order.created statement does). test/integration/webhooks/webhook-topics.test.ts compares it with
 * GET /admin/orders/{id}.
 */
export function orderDtoBeforeInsert(order: NewOrder, keys: Omit<OrderKeys, 'sequence'>, trackingUrl: string) {
  const epoch = new Date(0);
  const row: OrderRow = {
    id: keys.orderId,
    storeId: order.storeId,
    number: 0,
    customerId: keys.customerId,
    checkoutSessionId: order.checkoutSessionId,
    email: order.email,
    status: 'open',
    paymentStatus: order.paymentStatus,
    amountRefunded: 0,
    paymentEventCreated: null,
    paymentEventId: null,
    fulfillmentStatus: 'unfulfilled',
    paymentProvider: order.paymentProvider,
    paymentIntentId: order.paymentIntentId,
    currency: order.currency,
    subtotal: order.subtotal,
    discountTotal: order.discountTotal,
    shippingTotal: order.shippingTotal,
    taxTotal: order.taxTotal,
    total: order.total,
    pricesIncludeTax: order.pricesIncludeTax,
    shippingTaxLines: order.shippingTaxLines,
    taxProvider: order.taxProvider,
    taxReference: order.taxReference,
    taxTransactionId: null,
    discountCode: order.discountCode,
    shippingMethod: order.shippingMethod,
    shippingAddress: order.shippingAddress,
    billingAddress: order.billingAddress,
    trackingToken: keys.trackingToken,
    cancelledAt: null,
    cancelReason: null,
    createdAt: epoch,
    updatedAt: epoch
  };
  const items = order.lines.map((line, position) => ({
    ...line,
    taxLines: line.taxLines ?? [],
    taxAmount: (line.taxLines ?? []).reduce((sum, tax) => sum + tax.amount, 0),
    discountAmount: line.discountAmount ?? 0,
    id: keys.itemIds[position]!,
    orderId: keys.orderId,
    storeId: order.storeId,
    fulfilledQuantity: 0,
    refundedQuantity: 0,
    returnedQuantity: 0,
    restockedQuantity: 0,
    position
  })) as OrderItemRow[];
  return toOrderDto(row, items, [], trackingUrl);
}

export const REVENUE_SHARDS = 16;

/**
 * The revenue shard a write adds to. A shard's row stays locked until the writing transaction
 * commits (its WAL flush included), so two checkouts on one shard wait for each other: taken in
 * turn, one process's concurrent checkouts land on different shards; chosen at random, they
 * collided often enough to add 10 to 20 ms to some confirms at 50 shoppers. The random start
 * spreads processes apart.
 */
let lastShard = Math.floor(Math.random() * REVENUE_SHARDS);
const revenueShard = () => (lastShard = (lastShard + 1) % REVENUE_SHARDS);

const INSERT_ORDER = defineStatement(
  `with n as (
     select nextval(:sequence::regclass)::int as last_number
   ), o as (
     insert into orders (id, store_id, number, customer_id, checkout_session_id, email, payment_status, payment_provider, payment_intent_id,
                         currency, subtotal, discount_total, shipping_total, total, discount_code, shipping_method, shipping_address,
                         billing_address, tracking_token, tax_total, prices_include_tax, shipping_tax_lines, tax_provider, tax_reference)
     select :orderId, :storeId, n.last_number, :customerId, :sessionId, :email, :paymentStatus, :provider, :intentId,
            :currency, :subtotal, :discountTotal, :shippingTotal, :total, :discountCode, :shippingMethod::jsonb, :shippingAddress::jsonb,
            :billingAddress::jsonb, :trackingToken, :taxTotal, :pricesIncludeTax, :shippingTaxLines::jsonb, :taxProvider, :taxReference
       from n
     returning *
   ), i as (
     insert into order_items (id, order_id, store_id, product_id, variant_id, title, sku, quantity, unit_price, line_total, position, tax_lines, tax_amount, discount_amount)
     select x.id, o.id, o.store_id, x.product_id, x.variant_id, x.title, x.sku, x.quantity, x.unit_price, x.line_total, x.position, x.tax_lines, x.tax_amount, x.discount_amount
       from o, jsonb_to_recordset(:lines::jsonb) as x(id uuid, product_id uuid, variant_id uuid, title text, sku text, quantity int, unit_price int, line_total bigint, position int,
                                                     tax_lines jsonb, tax_amount bigint, discount_amount bigint)
     returning *
   ), e as (
     ${setPayloadFieldSql('orderNumber', "to_jsonb('#' || (select last_number from n))", ':emailOutboxId')}
   ), r as (
     insert into store_daily_revenue (store_id, day, shard, revenue, orders)
     select o.store_id, (o.created_at at time zone 'UTC')::date, :shard, o.total, 1 from o
     on conflict (store_id, day, shard) do update set revenue = store_daily_revenue.revenue + excluded.revenue, orders = store_daily_revenue.orders + 1
     returning 1
   )
   select row_to_json(o.*) as "order",
          (select coalesce(json_agg(row_to_json(i.*) order by i.position), '[]'::json) from i) as items,
          (select count(*) from r) as revenue_rows,
          (select count(*) from e) as email_rows
     from o`
);

/**
 * Draws the store's next order number and inserts the order, its items and the day's revenue in
 * ONE statement, and puts the number into the confirmation email already in the outbox. The only
 * row shared with other checkouts of the store is one of the revenue shards. A statement for the
 * caller to run in its transaction (runStatements, or with the COMMIT); insertedOrder reads its result.
 */
export function orderInsert(order: NewOrder, keys: OrderKeys): StatementCall {
  const lines = order.lines.map((line, position) => ({
    id: keys.itemIds[position],
    product_id: line.productId,
    variant_id: line.variantId,
    title: line.title,
    sku: line.sku,
    quantity: line.quantity,
    unit_price: line.unitPrice,
    line_total: line.lineTotal,
    position,
    tax_lines: line.taxLines ?? [],
    tax_amount: (line.taxLines ?? []).reduce((sum, tax) => sum + tax.amount, 0),
    discount_amount: line.discountAmount ?? 0
  }));
  return {
    statement: INSERT_ORDER,
    values: {
      storeId: order.storeId,
      sequence: keys.sequence,
      shard: revenueShard(),
      orderId: keys.orderId,
      customerId: keys.customerId,
      emailOutboxId: keys.emailOutboxId ?? null,
      sessionId: order.checkoutSessionId,
      email: order.email,
      paymentStatus: order.paymentStatus,
      provider: order.paymentProvider,
      intentId: order.paymentIntentId,
      currency: order.currency,
      subtotal: order.subtotal,
      discountTotal: order.discountTotal,
      shippingTotal: order.shippingTotal,
      total: order.total,
      taxTotal: order.taxTotal,
      pricesIncludeTax: order.pricesIncludeTax,
      shippingTaxLines: JSON.stringify(order.shippingTaxLines),
      taxProvider: order.taxProvider,
      taxReference: order.taxReference,
      discountCode: order.discountCode,
      shippingMethod: order.shippingMethod ? JSON.stringify(order.shippingMethod) : null,
      shippingAddress: JSON.stringify(order.shippingAddress),
      billingAddress: order.billingAddress ? JSON.stringify(order.billingAddress) : null,
      trackingToken: keys.trackingToken,
      lines: JSON.stringify(lines)
    }
  };
}

export function insertedOrder(result: StatementResult): { order: OrderRow; items: OrderItemRow[] } {
  const row = result.rows[0] as { order: Record<string, unknown>; items: Array<Record<string, unknown>> };
  return { order: fromJson<OrderRow>(row.order), items: row.items.map((item) => fromJson<OrderItemRow>(item)) };
}

/**
 * A refund, void or failed payment takes an amount out of the order's day's revenue (negative: puts
 * it back). The caller moved the payment's state in the same transaction, so it counts once.
 */
export async function subtractRevenue(db: Sql, storeId: string, createdAt: Date, total: number) {
  await db.raw(
    `insert into store_daily_revenue (store_id, day, shard, revenue, orders) values (?, (?::timestamptz at time zone 'UTC')::date, ?, ?, 0)
     on conflict (store_id, day, shard) do update set revenue = store_daily_revenue.revenue + excluded.revenue`,
    [storeId, createdAt, revenueShard(), -total]
  );
}

/**
 * The tax provider's transaction of a placed order (Stripe Tax), recorded after the order committed
 * from `calculation`; `replacing`: only while the order still holds that transaction (an edit's
 * replacement racing another keeps the one that read the current state; the other retries), with
 * `refunds`, the refunds the replacement already gives back (their queued reversals then reverse nothing).
 */
export async function setOrderTaxTransaction(
  db: Sql,
  storeId: string,
  orderId: string,
  transactionId: string,
  calculation: string,
  replacing: { transactionId: string; refunds: string[] } | null = null
): Promise<void> {
  const query = db('orders').where({ storeId, id: orderId });
  if (replacing) query.where({ taxTransactionId: replacing.transactionId });
  await query.update({ taxTransactionId: transactionId, taxTransactionCalculation: calculation, taxTransactionRefunds: replacing?.refunds ?? [] });
}

export interface OrderTaxTransaction {
  taxProvider: string | null;
  taxTransactionId: string | null;
  taxTransactionCalculation: string | null;
  /** The refunds the current transaction already gives back (a replacement's). */
  taxTransactionRefunds: string[];
  taxReference: string | null;
  number: number;
  /** What refunds gave back of the lines the order still bills, and which refunds those are. */
  refunded: number;
  refundIds: string[];
}

/** The tax provider and its transaction (Stripe Tax) a placed order recorded, with the calculation it came from; null for another store's order. */
export async function orderTaxTransaction(db: Sql, storeId: string, orderId: string): Promise<OrderTaxTransaction | null> {
  const row = (await db('orders').where({ storeId, id: orderId }).first('taxProvider', 'taxTransactionId', 'taxTransactionCalculation', 'taxTransactionRefunds', 'taxReference', 'number')) as
    | (Omit<OrderTaxTransaction, 'number' | 'refunded' | 'refundIds'> & { number: string | number })
    | undefined;
  if (!row) return null;
  // What refunds gave back of the lines the order still bills (an edit's refund took its lines off the calculation).
  const refunds = (await db('orderRefunds').where({ storeId, orderId, status: 'succeeded' }).whereNot({ source: 'edit' }).select('id', 'amount')) as Array<{ id: string; amount: string | number }>;
  return {
    ...row,
    taxTransactionRefunds: row.taxTransactionRefunds ?? [],
    number: Number(row.number),
    refunded: refunds.reduce((sum, refund) => sum + Number(refund.amount), 0),
    refundIds: refunds.map((refund) => refund.id)
  };
}
