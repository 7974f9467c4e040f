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

/**
 * What each position of a cursor must hold. A cursor is opaque to clients but not trusted: a crafted
 * one (valid base64 JSON of the wrong types) must answer 422, never reach SQL as an object or a
 * string that PostgreSQL cannot cast.
 */
export type CursorKind = 'timestamp' | 'uuid' | 'integer' | 'number' | 'string' | { literal: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INT4 = 2_147_483_647;

function fits(value: unknown, kind: CursorKind): boolean {
  if (typeof kind === 'object') return value === kind.literal;
  switch (kind) {
    case 'timestamp':
      // Cursors carry Date.toISOString() output; anything else was not made by us.
      return typeof value === 'string' && value.length === 24 && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString() === value;
    case 'uuid':
      return typeof value === 'string' && UUID.test(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= INT4;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string':
      return typeof value === 'string' && value.length <= 1000 && !value.includes('\u0000');
  }
}

export function decodeCursor(cursor: string, kinds: CursorKind[]): unknown[] {
  try {
    const values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(values) && values.length === kinds.length && kinds.every((kind, index) => fits(values[index], kind))) return values;
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
  /** What the sort and tie columns hold (default: a timestamp and a uuid). */
  kinds?: [CursorKind, CursorKind];
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
    const [value, tieValue] = decodeCursor(page.cursor, order.kinds ?? ['timestamp', 'uuid']);
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
