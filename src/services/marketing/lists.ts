import type { AppContext } from '../../context.js';
import { containsPattern } from '../../db/like-patterns.js';
import { notFound, validationFailed } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Sql, Transaction } from '../../db/transaction.js';

export interface ListInput {
  name: string;
  description?: string | null;
  customerIds?: string[];
}

interface ListRow {
  id: string;
  storeId: string;
  name: string;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const toListDto = (row: ListRow, customerIds: string[]) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  customerIds,
  memberCount: customerIds.length,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});

async function membersOf(db: Sql, storeId: string, listIds: string[]): Promise<Map<string, string[]>> {
  const rows = listIds.length
    ? await db('marketingListMembers').where({ storeId }).whereIn('listId', listIds).orderBy(['listId', 'customerId']).select('listId', 'customerId')
    : [];
  const members = new Map<string, string[]>(listIds.map((id) => [id, []]));
  for (const row of rows) members.get(row.listId)!.push(row.customerId);
  return members;
}

/** Replaces the members; every id must be a customer of this store (422 names the unknown ones). */
async function writeMembers(trx: Transaction, storeId: string, listId: string, customerIds: string[]) {
  const unique = [...new Set(customerIds)];
  const known = unique.length ? ((await trx('customers').where({ storeId }).whereIn('id', unique).pluck('id')) as string[]) : [];
  if (known.length !== unique.length) {
    const knownSet = new Set(known);
    const unknown = unique.filter((id) => !knownSet.has(id));
    throw validationFailed(unknown.slice(0, 20).map((id) => ({ path: 'customerIds', message: `unknown customer ${id}` })));
  }
  await trx('marketingListMembers').where({ storeId, listId }).delete();
  if (unique.length) {
    await trx.raw('insert into marketing_list_members (store_id, list_id, customer_id) select ?, ?, unnest(?::uuid[])', [storeId, listId, unique]);
  }
}

export async function listLists(ctx: AppContext, storeId: string, filters: { q?: string }, page: PageRequest) {
  const query = ctx.db('marketingLists').where({ storeId });
  if (filters.q) query.whereRaw('lower(name) like ?', [containsPattern(filters.q)]);
  const result = await keysetPage<ListRow>(query, { column: 'createdAt', direction: 'desc' }, page);
  const members = await membersOf(ctx.db, storeId, result.items.map((row) => row.id));
  return { lists: result.items.map((row) => toListDto(row, members.get(row.id) ?? [])), nextCursor: result.nextCursor };
}

export async function getList(ctx: AppContext, storeId: string, listId: string) {
  const row: ListRow | undefined = await ctx.db('marketingLists').where({ storeId, id: listId }).first();
  if (!row) throw notFound('List');
  return toListDto(row, (await membersOf(ctx.db, storeId, [row.id])).get(row.id)!);
}

export async function createList(ctx: AppContext, storeId: string, input: ListInput) {
  const id = await withTransaction(ctx, async (trx) => {
    const [row] = await trx('marketingLists').insert({ storeId, name: input.name, description: input.description ?? null }).returning('id');
    await writeMembers(trx, storeId, row.id, input.customerIds ?? []);
    return row.id as string;
  });
  return getList(ctx, storeId, id);
}

/** PUT replaces name and description; members are replaced when `customerIds` is given. */
export async function replaceList(ctx: AppContext, storeId: string, listId: string, input: ListInput) {
  await withTransaction(ctx, async (trx) => {
    const updated = await trx('marketingLists')
      .where({ storeId, id: listId })
      .update({ name: input.name, description: input.description ?? null, updatedAt: trx.fn.now() });
    if (!updated) throw notFound('List');
    if (input.customerIds) await writeMembers(trx, storeId, listId, input.customerIds);
  });
  return getList(ctx, storeId, listId);
}

export async function deleteList(ctx: AppContext, storeId: string, listId: string) {
  const deleted = await withTransaction(ctx, async (trx) => trx('marketingLists').where({ storeId, id: listId }).delete());
  if (!deleted) throw notFound('List');
}

/** 422 when an audience names a list this store does not have. */
export async function assertListsExist(db: Sql, storeId: string, listIds: string[]) {
  const unique = [...new Set(listIds)];
  if (!unique.length) return;
  const known = new Set((await db('marketingLists').where({ storeId }).whereIn('id', unique).pluck('id')) as string[]);
  const unknown = unique.filter((id) => !known.has(id));
  if (unknown.length) throw validationFailed(unknown.map((id) => ({ path: 'audience.listIds', message: `unknown list ${id}` })));
}
