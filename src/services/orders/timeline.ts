import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import type { Sql } from '../../db/transaction.js';

/** Who changed an order: a member of the store, the system (a schedule, the checkout), or a webhook. */
export type Actor = { type: 'user'; userId: string } | { type: 'system' } | { type: 'webhook' };
export const SYSTEM: Actor = { type: 'system' };
export const WEBHOOK: Actor = { type: 'webhook' };
export const userActor = (userId: string): Actor => ({ type: 'user', userId });

export const ORDER_EVENT_TYPES = [
  'placed',
  'authorized',
  'paid',
  'payment_voided',
  'payment_failed',
  'fulfilled',
  'email_sent',
  'refunded',
  'refund_failed',
  'cancelled',
  'return_requested',
  'return_received',
  'return_closed',
  'return_cancelled',
  'note',
  'draft_completed',
  'duplicate_payment_refunded',
  'edited',
  'exchanged',
  'balance_invoiced',
  'balance_voided',
  'dispute_opened',
  'dispute_updated',
  'dispute_closed'
] as const;
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];
export const ACTOR_TYPES = ['user', 'system', 'webhook'] as const;

/** An `order_events` row. */
export interface OrderEventRow {
  id: string;
  storeId: string;
  orderId: string;
  type: OrderEventType;
  actorType: Actor['type'];
  userId: string | null;
  data: Record<string, unknown>;
  body: string | null;
  isPublic: boolean;
  createdAt: Date;
  /** The order entries were written in (ties of one transaction's instant). */
  seq: number;
  updatedAt: Date | null;
}

export const toOrderEventDto = (row: OrderEventRow) => ({
  id: row.id,
  type: row.type,
  actor: { type: row.actorType, userId: row.userId },
  data: row.data ?? {},
  body: row.body,
  isPublic: row.isPublic,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});

/** Writes one event of an order's timeline in the caller's transaction (the change and its event commit together). */
export async function recordOrderEvent(
  db: Sql,
  storeId: string,
  orderId: string,
  type: OrderEventType,
  actor: Actor,
  data: Record<string, unknown> = {},
  note?: { body: string; isPublic: boolean }
): Promise<OrderEventRow> {
  const [row] = (await db('orderEvents')
    .insert({
      storeId,
      orderId,
      type,
      actorType: actor.type,
      userId: actor.type === 'user' ? actor.userId : null,
      data: JSON.stringify(data),
      body: note?.body ?? null,
      isPublic: note?.isPublic ?? false
    })
    .returning('*')) as OrderEventRow[];
  return row!;
}

/** Several entries of one order by one actor in one statement (one round trip), in this order. */
export async function recordOrderEvents(db: Sql, storeId: string, orderId: string, actor: Actor, entries: Array<{ type: OrderEventType; data?: Record<string, unknown> }>): Promise<void> {
  if (!entries.length) return;
  const userId = actor.type === 'user' ? actor.userId : null;
  await db('orderEvents').insert(entries.map((entry) => ({ storeId, orderId, type: entry.type, actorType: actor.type, userId, data: JSON.stringify(entry.data ?? {}), body: null, isPublic: false })));
}

/** The order's timeline, newest first (keyset pages); another store's order is 404. */
export async function listTimeline(ctx: AppContext, storeId: string, orderId: string, page: PageRequest) {
  const order = await ctx.db('orders').where({ storeId, id: orderId }).first('id');
  if (!order) throw notFound('Order');
  // Entries of one transaction share its instant: `seq` (the order they were written in) breaks the tie.
  const result = await keysetPage<OrderEventRow>(ctx.db('orderEvents').where({ storeId, orderId }), { column: 'createdAt', direction: 'desc', tieBreaker: 'seq', kinds: ['timestamp', 'bigint'] }, page);
  return { events: result.items.map(toOrderEventDto), nextCursor: result.nextCursor };
}
