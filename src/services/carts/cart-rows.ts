import type { Sql } from '../../db/transaction.js';
import { PREPARED } from '../../db/prepared-statements.js';
import { notFound } from '../../errors.js';
import { lineRowsSql, toCartLine, type CartLine, type CartRow, type LineRow } from './cart-view.js';

/**
 * The SQL of a cart's own row, on the shopper's hot path: each read or write here is one prepared
 * statement, and a change before checkout takes two (lock, write) where it took four.
 */
export const CART_COLUMNS =
  'id, store_id, status, currency, email, discount_id, discount_code, shipping_method_id, shipping_country, order_id, expires_at, created_at, updated_at';

/** A checkout session still holding stock for the cart. */
export interface PendingSession {
  id: string;
  storeId: string;
  discountId: string | null;
}

/** An open cart past its expiry is gone for the shopper (the cleanup job deletes it later). */
export function assertLive(cart: CartRow | undefined): CartRow {
  if (!cart || (cart.status === 'open' && cart.expiresAt.getTime() <= Date.now())) throw notFound('Cart');
  return cart;
}

const LOCK_SQL = `select ${CART_COLUMNS}, checkout_opened from carts where id = ? and store_id = ? for update`;

const PENDING_SQL = 'select id, store_id, discount_id from checkout_sessions where cart_id = ? and store_id = ? and status = ? for update';

/**
 * Locks a cart for a change and reads its pending checkout sessions (locked after it, the order
 * every checkout path uses). The sessions are read in a statement of their own, after the lock is
 * held: a statement that waited for the lock still reads with the snapshot it started with, which
 * can miss a session inserted by the transaction it waited for. A cart that never opened a
 * checkout (the flag is on the locked, current row) has none to read.
 */
export async function lockCart(trx: Sql, storeId: string, cartId: string): Promise<{ cart: CartRow; pendingSessions: PendingSession[] }> {
  const locked = await trx.raw(LOCK_SQL, [cartId, storeId]).options(PREPARED);
  const { checkoutOpened, ...cart } = assertLive(locked.rows[0]) as CartRow & { checkoutOpened: boolean };
  if (!checkoutOpened) return { cart, pendingSessions: [] };
  const pending = await trx.raw(PENDING_SQL, [cartId, storeId, 'pending']).options(PREPARED);
  return { cart, pendingSessions: pending.rows as PendingSession[] };
}

const READ_SQL = `select ${CART_COLUMNS}, coalesce((select json_agg(l order by l."addedAt", l.id) from (${lineRowsSql('c.id')}) l), '[]') as lines
  from carts c where c.id = ? and c.store_id = ?`;

/** A cart and its lines in one statement (undefined cart when there is none; the caller applies assertLive). */
export async function readCart(db: Sql, storeId: string, cartId: string): Promise<{ cart: CartRow | undefined; lines: CartLine[] }> {
  const row = (await db.raw(READ_SQL, [cartId, storeId]).options(PREPARED)).rows[0] as (CartRow & { lines: LineRow[] }) | undefined;
  if (!row) return { cart: undefined, lines: [] };
  const { lines, ...cart } = row;
  return { cart, lines: lines.map(toCartLine) };
}

/** Columns a cart change may set on the cart row, by field. */
const WRITABLE = {
  discountId: 'discount_id',
  discountCode: 'discount_code',
  shippingMethodId: 'shipping_method_id',
  shippingCountry: 'shipping_country'
} as const;

export type CartColumns = Partial<Pick<CartRow, keyof typeof WRITABLE>>;

/**
 * Writes a change's columns with the new expiry and returns the cart with its lines, in one
 * statement (the lines are read after the change's own writes, which ran before it).
 */
export async function writeCart(trx: Sql, cartId: string, columns: CartColumns, expiresAt: Date): Promise<{ cart: CartRow; lines: CartLine[] }> {
  const fields = (Object.keys(WRITABLE) as Array<keyof typeof WRITABLE>).filter((field) => columns[field] !== undefined);
  const sets = [...fields.map((field) => `${WRITABLE[field]} = ?`), 'expires_at = ?'];
  const result = await trx
    .raw(
      `with c as (update carts set ${[...sets, 'updated_at = now()'].join(', ')} where id = ? returning ${CART_COLUMNS})
       select c.*, coalesce((select json_agg(l order by l."addedAt", l.id) from (${lineRowsSql('c.id')}) l), '[]') as lines from c`,
      [...fields.map((field) => columns[field] ?? null), expiresAt, cartId]
    )
    .options(PREPARED);
  const { lines, ...cart } = result.rows[0] as CartRow & { lines: LineRow[] };
  return { cart, lines: lines.map(toCartLine) };
}

/**
 * The change most carts see, in one autocommit statement: set the columns and push the expiry of a
 * live open cart that never opened a checkout (so no session's stock depends on its lines). The
 * UPDATE takes the row lock, and PostgreSQL re-checks the WHERE on the row as it is once the lock
 * is held, so a checkout opened meanwhile is seen. Returns undefined when the cart is not such a
 * cart: the caller then takes the locked path (lockCart), which also tells 404 from 409.
 */
export async function touchOpenCart(db: Sql, storeId: string, cartId: string, columns: CartColumns, expiresAt: Date): Promise<CartRow | undefined> {
  const fields = (Object.keys(WRITABLE) as Array<keyof typeof WRITABLE>).filter((field) => columns[field] !== undefined);
  const sets = [...fields.map((field) => `${WRITABLE[field]} = ?`), 'expires_at = ?', 'updated_at = now()'];
  const result = await db
    .raw(
      `update carts set ${sets.join(', ')}
        where id = ? and store_id = ? and status = 'open' and expires_at > now() and not checkout_opened
       returning ${CART_COLUMNS}`,
      [...fields.map((field) => columns[field] ?? null), expiresAt, cartId, storeId]
    )
    .options(PREPARED);
  return result.rows[0] as CartRow | undefined;
}
