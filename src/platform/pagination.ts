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
export type CursorKind = 'timestamp' | 'uuid' | 'integer' | 'bigint' | 'number' | 'string' | { literal: string };

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
    case 'bigint':
      // bigint columns arrive as numbers (db/knex.ts); sums of money stay far below 2^53.
      return typeof value === 'number' && Number.isSafeInteger(value);
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
  /**
   * Sort by this SQL expression over the row instead of the column (never null: coalesce it), e.g.
   * `lower(title)`; it is selected as `column` for the cursor, so the query must name its columns.
   */
  expression?: string;
  direction: 'asc' | 'desc';
  tieBreaker?: string;
  /** What the sort and tie columns hold (default: a timestamp and a uuid). */
  kinds?: [CursorKind, CursorKind];
  /**
   * Written first into the cursor and required back (the list's `sort` when not the default): a
   * cursor of one sort handed to another is refused (422), never read as a position in it.
   */
  cursorTag?: string;
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
  const tag = order.cursorTag === undefined ? [] : [order.cursorTag];
  // The sort key: an identifier binding (`??`) for a column, the expression itself otherwise.
  const key = order.expression ? { sql: `(${order.expression})`, bindings: [] as string[] } : { sql: '??', bindings: [order.column] };
  if (order.expression) query.select(query.client.raw(`${key.sql} as ??`, [order.column]));
  if (page.cursor) {
    const kinds = [...tag.map((literal) => ({ literal })), ...(order.kinds ?? ['timestamp', 'uuid'])];
    const [value, tieValue] = decodeCursor(page.cursor, kinds).slice(tag.length);
    query.whereRaw(`(${key.sql}, ??) ${comparator} (?, ?)`, [...key.bindings, tie, value as any, tieValue as any]);
  }
  const direction = order.direction === 'desc' ? 'desc' : 'asc';
  const rows = (await query.orderByRaw(`${key.sql} ${direction}, ?? ${direction}`, [...key.bindings, tie]).limit(page.limit + 1)) as Row[];
  const hasMore = rows.length > page.limit;
  const items = hasMore ? rows.slice(0, page.limit) : rows;
  const last = items[items.length - 1];
  const sortKey = (name: string) => name.split('.').pop()!;
  const lastValue = last ? last[sortKey(order.column)] : null;
  return {
    items,
    nextCursor: hasMore && last ? encodeCursor([...tag, lastValue instanceof Date ? lastValue.toISOString() : lastValue, last[sortKey(tie)]]) : null
  };
}

export const paginationMeta = (limit: number, nextCursor: string | null) => ({ pagination: { limit, nextCursor } });

/**
 * The sorts a list offers, by the name its `sort` parameter takes: `name` ascending, `-name`
 * descending (one syntax for every admin list). Each is a keyset order without its direction.
 */
export type ListSorts = Record<string, Omit<KeysetOrder, 'direction' | 'cursorTag'>>;

/** Every value `sort` accepts for these sorts: each name and its `-name`. */
export const sortValues = (sorts: ListSorts): string[] => Object.keys(sorts).flatMap((name) => [name, `-${name}`]);

/**
 * The keyset order of a `sort` value (already validated against `sortValues`). Cursors of any sort
 * but the list's default carry the sort, so a cursor only continues the sort that made it (and the
 * default's cursors stay what they were before lists took `sort`).
 */
export function sortOrder(sorts: ListSorts, sort: string, defaultSort: string): KeysetOrder {
  const name = sort.replace(/^-/, '');
  const spec = sorts[name];
  if (!spec) throw new Error(`unknown sort ${sort}`);
  return { ...spec, direction: sort.startsWith('-') ? 'desc' : 'asc', ...(sort === defaultSort ? {} : { cursorTag: sort }) };
}
