import type { AppContext } from '../../context.js';
import { forbidden, notFound } from '../../errors.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { recordOrderEvent, toOrderEventDto, userActor, type OrderEventRow } from './timeline.js';

export interface NoteInput {
  body: string;
  isPublic?: boolean;
}

/** A note on the order's timeline; a public one also shows on the order's public tracking page. */
export async function addOrderNote(ctx: AppContext, storeId: string, orderId: string, userId: string, input: NoteInput) {
  const order = await ctx.db('orders').where({ storeId, id: orderId }).first('id');
  if (!order) throw notFound('Order');
  // Each write in a transaction, so that an admin request's audit entry commits with it.
  const row = await withTransaction(ctx, (trx) => recordOrderEvent(trx, storeId, orderId, 'note', userActor(userId), {}, { body: input.body, isPublic: input.isPublic ?? false }));
  return { event: toOrderEventDto(row) };
}

/** The note, if it is one of this order's notes; only its author may change it. */
async function ownNote(ctx: AppContext, storeId: string, orderId: string, noteId: string, userId: string): Promise<OrderEventRow> {
  const row = (await ctx.db('orderEvents').where({ storeId, orderId, id: noteId, type: 'note' }).first()) as OrderEventRow | undefined;
  if (!row) throw notFound('Note');
  if (row.userId !== userId) throw forbidden('Only the author of a note may change or delete it');
  return row;
}

export async function updateOrderNote(ctx: AppContext, storeId: string, orderId: string, noteId: string, userId: string, patch: Partial<NoteInput>) {
  await ownNote(ctx, storeId, orderId, noteId, userId);
  const [row] = await withTransaction(ctx, async (trx) => (await trx('orderEvents')
    .where({ storeId, id: noteId })
    .update({ ...(patch.body !== undefined ? { body: patch.body } : {}), ...(patch.isPublic !== undefined ? { isPublic: patch.isPublic } : {}), updatedAt: trx.fn.now() })
    .returning('*')) as OrderEventRow[]);
  return { event: toOrderEventDto(row!) };
}

export async function deleteOrderNote(ctx: AppContext, storeId: string, orderId: string, noteId: string, userId: string) {
  await ownNote(ctx, storeId, orderId, noteId, userId);
  await withTransaction(ctx, (trx) => trx('orderEvents').where({ storeId, id: noteId }).delete());
}

/** The public notes of an order, oldest first, for its tracking page. */
export async function publicNotes(ctx: AppContext, storeId: string, orderId: string) {
  const rows = (await ctx.db('orderEvents').where({ storeId, orderId, type: 'note', isPublic: true }).orderBy([{ column: 'createdAt' }, { column: 'seq' }]).select('body', 'createdAt')) as Array<{ body: string; createdAt: Date }>;
  return rows;
}
