import type { Knex } from 'knex';
import { validationFailed } from '../errors.js';

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export function encodeCursor(values: unknown[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor(cursor: string, length: number): unknown[] {
  try {
    const values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(values) && values.length === length) return values;
  } catch {
    // fall through to the validation error
  }
  throw validationFailed([{ path: 'cursor', message: 'cursor is not valid for this list' }]);
}

export interface KeysetOrder {
  /** Column to sort by (camelCase, mapped to SQL); ties broken by `tieBreaker` (default the id). */
  column: string;
  direction: 'asc' | 'desc';
  tieBreaker?: string;
}

/**
 * Keyset pagination: `WHERE (col, id) < (last col, last id)` on an index, so page 500 costs what
 * page 1 costs. Fetches one extra row to know whether a next page exists.
 *
 * Timestamp sort columns must be stored at millisecond precision (`timestamptz(3)`): the cursor
 * carries a JS Date, and a microsecond remainder would make the comparison skip rows.
 */
export async function keysetPage<Row extends Record<string, any>>(
  query: Knex.QueryBuilder,
  order: KeysetOrder,
  page: PageRequest
): Promise<Page<Row>> {
  const tie = order.tieBreaker ?? 'id';
  const comparator = order.direction === 'desc' ? '<' : '>';
  if (page.cursor) {
    const [value, tieValue] = decodeCursor(page.cursor, 2);
    query.whereRaw(`(??, ??) ${comparator} (?, ?)`, [order.column, tie, value as any, tieValue as any]);
  }
  const rows = (await query.orderBy([
    { column: order.column, order: order.direction },
    { column: tie, order: order.direction }
  ]).limit(page.limit + 1)) as Row[];
  const hasMore = rows.length > page.limit;
  const items = hasMore ? rows.slice(0, page.limit) : rows;
  const last = items[items.length - 1];
  const sortKey = (name: string) => name.split('.').pop()!;
  const lastValue = last ? last[sortKey(order.column)] : null;
  return {
    items,
    nextCursor: hasMore && last ? encodeCursor([lastValue instanceof Date ? lastValue.toISOString() : lastValue, last[sortKey(tie)]]) : null
  };
}

export const paginationMeta = (limit: number, nextCursor: string | null) => ({ pagination: { limit, nextCursor } });
