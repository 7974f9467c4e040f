import type { AppContext } from '../../context.js';
import { conflict, notFound, validationFailed } from '../../errors.js';
import { lockVariants } from '../catalog/inventory.js';
import type { OrderItemRow } from './dto.js';
import { loadOrder } from './orders.js';
import { createRefund } from './refunds.js';
import { restockOrderLines } from './restock.js';
import { recordOrderEvent, type Actor } from './timeline.js';
import { withTransaction } from '../with-transaction.js';

export const RETURN_STATUSES = ['requested', 'received', 'closed', 'cancelled'] as const;
type ReturnLine = { orderItemId: string; quantity: number };

/** An `order_returns` row. */
export interface ReturnRow {
  id: string;
  storeId: string;
  orderId: string;
  status: (typeof RETURN_STATUSES)[number];
  reason: string;
  items: ReturnLine[];
  receivedItems: ReturnLine[] | null;
  restocked: boolean;
  refundId: string | null;
  userId: string | null;
  createdAt: Date;
  receivedAt: Date | null;
  closedAt: Date | null;
  updatedAt: Date;
}

export const toReturnDto = (row: ReturnRow) => ({
  id: row.id,
  orderId: row.orderId,
  status: row.status,
  reason: row.reason,
  items: row.items,
  receivedItems: row.receivedItems,
  restocked: row.restocked,
  refundId: row.refundId,
  createdAt: row.createdAt,
  receivedAt: row.receivedAt,
  closedAt: row.closedAt
});

/** The lines merged per item, each checked against the order's items. */
function mergeLines(lines: ReturnLine[], byId: Map<string, unknown>): ReturnLine[] {
  const merged = new Map<string, number>();
  lines.forEach((line, index) => {
    if (!byId.has(line.orderItemId)) throw validationFailed([{ path: `items.${index}.orderItemId`, message: 'not an item of this return' }]);
    merged.set(line.orderItemId, (merged.get(line.orderItemId) ?? 0) + line.quantity);
  });
  return [...merged].map(([orderItemId, quantity]) => ({ orderItemId, quantity }));
}

/**
 * A return of fulfilled items: under the order's lock each line must fit in what was fulfilled
 * and is not already on another return (`returned_quantity` holds it), so two returns cannot take
 * the same unit back.
 */
export async function requestReturn(ctx: AppContext, storeId: string, orderId: string, input: { items: ReturnLine[]; reason: string }, actor: Actor) {
  const row = await withTransaction(ctx, async (trx) => {
    const order = await trx('orders').where({ storeId, id: orderId }).forUpdate().first('id');
    if (!order) throw notFound('Order');
    const items = (await trx('orderItems').where({ storeId, orderId }).orderBy('position')) as OrderItemRow[];
    const byId = new Map(items.map((item) => [item.id, item]));
    const lines = mergeLines(input.items, byId);
    for (const line of lines) {
      const item = byId.get(line.orderItemId)!;
      const left = item.fulfilledQuantity - item.returnedQuantity;
      if (line.quantity > left) {
        throw conflict('conflict', left === 0 ? `No fulfilled unit of ${item.title} is left to return` : `only ${left} fulfilled ${item.title} left to return`, [
          { path: `items.${line.orderItemId}`, message: `${left} left to return` }
        ]);
      }
      await trx('orderItems').where({ storeId, id: line.orderItemId }).update({ returnedQuantity: trx.raw('returned_quantity + ?', [line.quantity]) });
    }
    const [created] = (await trx('orderReturns')
      .insert({ storeId, orderId, reason: input.reason, items: JSON.stringify(lines), userId: actor.type === 'user' ? actor.userId : null })
      .returning('*')) as ReturnRow[];
    await recordOrderEvent(trx, storeId, orderId, 'return_requested', actor, { returnId: created!.id, items: lines, reason: input.reason });
    return created!;
  });
  return { return: toReturnDto(row) };
}

export async function getReturn(ctx: AppContext, storeId: string, returnId: string) {
  const row = (await ctx.db('orderReturns').where({ storeId, id: returnId }).first()) as ReturnRow | undefined;
  if (!row) throw notFound('Return');
  return { return: toReturnDto(row) };
}

/**
 * The parcel came back: the received lines (default: all requested) go back on the shelf when
 * `restock` (each line capped at what a refund has not put back already: restockOrderLines); with `refund`, the received items are refunded in the same request (a refund like any
 * other, linked to the return) and the return is closed. A return not `requested` is 409.
 */
export async function receiveReturn(
  ctx: AppContext,
  storeId: string,
  returnId: string,
  input: { items?: ReturnLine[]; restock?: boolean; refund?: boolean; notifyCustomer?: boolean },
  actor: Actor
) {
  const restock = input.restock ?? true;
  const found = (await ctx.db('orderReturns').where({ storeId, id: returnId }).first()) as ReturnRow | undefined;
  if (!found) throw notFound('Return');
  const variantIds = restock
    ? ((await ctx.db('orderItems').where({ storeId }).whereIn('id', found.items.map((line) => line.orderItemId)).whereNotNull('variantId').select('variantId')) as Array<{ variantId: string }>).map((row) => row.variantId)
    : [];
  const received = await withTransaction(ctx, async (trx, emit) => {
    await lockVariants(trx, storeId, variantIds);
    await trx('orders').where({ storeId, id: found.orderId }).forUpdate().first('id');
    const current = (await trx('orderReturns').where({ storeId, id: returnId }).first()) as ReturnRow;
    if (current.status !== 'requested') throw conflict('conflict', `This return is ${current.status}`, [{ path: 'returnId', message: `return is ${current.status}` }]);
    const requested = new Map(current.items.map((line) => [line.orderItemId, line.quantity]));
    const lines = input.items ? mergeLines(input.items, requested) : current.items;
    for (const line of lines) {
      if (line.quantity > requested.get(line.orderItemId)!) {
        throw validationFailed([{ path: `items.${line.orderItemId}`, message: `only ${requested.get(line.orderItemId)} requested` }]);
      }
    }
    // Units not received are no longer on a return.
    for (const [orderItemId, quantity] of requested) {
      const back = lines.find((line) => line.orderItemId === orderItemId)?.quantity ?? 0;
      if (quantity > back) await trx('orderItems').where({ storeId, id: orderItemId }).update({ returnedQuantity: trx.raw('greatest(returned_quantity - ?, 0)', [quantity - back]) });
    }
    // Capped per line: units a refund with restock already put back do not go back a second time.
    const restocked = restock
      ? await restockOrderLines(trx, storeId, found.orderId, lines, { userId: actor.type === 'user' ? actor.userId : null, reason: 'return received', code: 'return' })
      : null;
    if (restocked?.backInStock.length) emit({ type: 'inventory.changed', storeId, variantIds: restocked.backInStock });
    const [row] = (await trx('orderReturns')
      .where({ storeId, id: returnId })
      .update({ status: 'received', receivedItems: JSON.stringify(lines), restocked: restock, receivedAt: trx.fn.now(), updatedAt: trx.fn.now() })
      .returning('*')) as ReturnRow[];
    await recordOrderEvent(trx, storeId, found.orderId, 'return_received', actor, { returnId, items: lines, restocked: restock, restockedQuantity: restocked?.restockedQuantity ?? 0 });
    return row!;
  });
  let row = received;
  if (input.refund && received.receivedItems?.length) {
    const { refund } = await createRefund(
      ctx,
      storeId,
      found.orderId,
      { items: received.receivedItems.map((line) => ({ ...line, restock: false })), reason: `return: ${found.reason}`, notifyCustomer: input.notifyCustomer ?? true },
      actor,
      { returnId }
    );
    row = await closeReturnRow(ctx, storeId, returnId, actor, refund.id);
  }
  return { return: toReturnDto(row), order: (await loadOrder(ctx, ctx.db, storeId, found.orderId)).dto };
}

async function closeReturnRow(ctx: AppContext, storeId: string, returnId: string, actor: Actor, refundId: string | null): Promise<ReturnRow> {
  return withTransaction(ctx, async (trx) => {
    const [row] = (await trx('orderReturns')
      .where({ storeId, id: returnId, status: 'received' })
      .update({ status: 'closed', refundId: refundId ?? trx.raw('refund_id'), closedAt: trx.fn.now(), updatedAt: trx.fn.now() })
      .returning('*')) as ReturnRow[];
    if (!row) {
      const current = (await trx('orderReturns').where({ storeId, id: returnId }).first('status')) as Pick<ReturnRow, 'status'> | undefined;
      if (!current) throw notFound('Return');
      throw conflict('conflict', `This return is ${current.status}: only a received return can be closed`, [{ path: 'returnId', message: `return is ${current.status}` }]);
    }
    await recordOrderEvent(trx, storeId, row.orderId, 'return_closed', actor, { returnId, refundId });
    return row;
  });
}

/** A received return is done with (refunded elsewhere, or kept without a refund). */
export async function closeReturn(ctx: AppContext, storeId: string, returnId: string, actor: Actor) {
  return { return: toReturnDto(await closeReturnRow(ctx, storeId, returnId, actor, null)) };
}

/** A requested return that will not come back: its units may be returned again. */
export async function cancelReturn(ctx: AppContext, storeId: string, returnId: string, actor: Actor) {
  const row = await withTransaction(ctx, async (trx) => {
    const found = (await trx('orderReturns').where({ storeId, id: returnId }).first('orderId')) as Pick<ReturnRow, 'orderId'> | undefined;
    if (!found) throw notFound('Return');
    await trx('orders').where({ storeId, id: found.orderId }).forUpdate().first('id');
    const current = (await trx('orderReturns').where({ storeId, id: returnId }).first()) as ReturnRow;
    if (current.status !== 'requested') throw conflict('conflict', `This return is ${current.status}: only a requested return can be cancelled`, [{ path: 'returnId', message: `return is ${current.status}` }]);
    for (const line of current.items) {
      await trx('orderItems').where({ storeId, id: line.orderItemId }).update({ returnedQuantity: trx.raw('greatest(returned_quantity - ?, 0)', [line.quantity]) });
    }
    const [updated] = (await trx('orderReturns').where({ storeId, id: returnId }).update({ status: 'cancelled', closedAt: trx.fn.now(), updatedAt: trx.fn.now() }).returning('*')) as ReturnRow[];
    await recordOrderEvent(trx, storeId, current.orderId, 'return_cancelled', actor, { returnId });
    return updated!;
  });
  return { return: toReturnDto(row) };
}
