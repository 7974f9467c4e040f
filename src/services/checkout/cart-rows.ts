import { defineStatement, runStatement, type Statement } from '../../db/prepared-statements.js';
import type { Sql } from '../../db/transaction.js';
import { notFound } from '../../errors.js';
import { lineRowsSql, toCartLine, type CartLine, type CartRow, type LineRow } from './cart-view.js';

/**
 * The SQL of a cart's own row, on the shopper's hot path: each read or write here is one prepared
 * statement (defineStatement), and a change before checkout takes one.
 */
export const CART_COLUMNS =
  'id, store_id, status, currency, email, discount_id, discount_code, shipping_method_id, shipping_country, shipping_region, shipping_postcode, shipping_method_dropped, order_id, expires_at, created_at, updated_at';

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

/** A cart's lines as one JSON array (LineRow objects), in the order they were added; `cartId` is an SQL expression. */
const linesJson = (cartId: string) => `coalesce((select json_agg(l order by l."addedAt", l.id) from (${lineRowsSql(cartId)}) l), '[]')`;

/**
 * "This cart row is still the version this statement's snapshot holds", for the WHERE of a
 * statement that locks cart `c` (`cartId`: the binding of its id, `?` or `:cartId`). PostgreSQL re-checks the WHERE on the current
 * row once a waited-for lock is granted, while the subquery keeps the snapshot's version: the
 * row drops out when another transaction changed the cart after the snapshot was taken. Every
 * change to a cart's lines also updates its row, so when the row qualifies, lines read from the
 * same snapshot are the cart's current lines.
 */
const unchangedSinceSnapshot = (cartId: string) => `c.xmin = (select xmin from carts where id = ${cartId})`;

const LOCK = defineStatement(`select ${CART_COLUMNS}, checkout_opened from carts where id = :cartId and store_id = :storeId for update`);

const LOCK_WITH_LINES = defineStatement(`select ${CART_COLUMNS}, checkout_opened, ${linesJson('c.id')} as lines
  from carts c where c.id = :cartId and c.store_id = :storeId and ${unchangedSinceSnapshot(':cartId')} for update of c`);

const PENDING = defineStatement(`select id, store_id, discount_id from checkout_sessions where cart_id = :cartId and store_id = :storeId and status = 'pending' for update`);

/**
 * Locks a cart for a change and reads its pending checkout sessions (locked after it, the order
 * every checkout path uses). The sessions are read in a statement of their own, after the lock is
 * held: a statement that waited for the lock still reads with the snapshot it started with, which
 * can miss a session inserted by the transaction it waited for. A cart that never opened a
 * checkout (the flag is on the locked, current row) has none to read.
 * With `readLines`, the lines come with the lock when the cart did not change while the lock was
 * awaited (see unchangedSinceSnapshot); otherwise `lines` is undefined and the caller reads them.
 */
export async function lockCart(
  trx: Sql,
  storeId: string,
  cartId: string,
  options: { readLines?: boolean } = {}
): Promise<{ cart: CartRow; lines?: CartLine[]; pendingSessions: PendingSession[] }> {
  const withLines = options.readLines
    ? (await runStatement<CartRow & { checkoutOpened: boolean; lines: LineRow[] }>(trx, LOCK_WITH_LINES, { cartId, storeId })).rows[0]
    : undefined;
  const locked = withLines ?? (await runStatement<CartRow & { checkoutOpened: boolean }>(trx, LOCK, { cartId, storeId })).rows[0];
  const { checkoutOpened, lines: lineRows, ...cart } = assertLive(locked) as CartRow & { checkoutOpened: boolean; lines?: LineRow[] };
  const lines = lineRows?.map(toCartLine);
  if (!checkoutOpened) return { cart, lines, pendingSessions: [] };
  const pending = await runStatement<PendingSession>(trx, PENDING, { cartId, storeId });
  return { cart, lines, pendingSessions: pending.rows };
}

const READ = defineStatement(`select ${CART_COLUMNS}, ${linesJson('c.id')} as lines from carts c where c.id = :cartId and c.store_id = :storeId`);

/** A cart and its lines in one statement (undefined cart when there is none; the caller applies assertLive). */
export async function readCart(db: Sql, storeId: string, cartId: string): Promise<{ cart: CartRow | undefined; lines: CartLine[] }> {
  const row = (await runStatement<CartRow & { lines: LineRow[] }>(db, READ, { cartId, storeId })).rows[0];
  if (!row) return { cart: undefined, lines: [] };
  const { lines, ...cart } = row;
  return { cart, lines: lines.map(toCartLine) };
}

const INSERT = defineStatement(
  `insert into carts (store_id, currency, email, expires_at) values (:storeId, :currency, :email, :expiresAt) returning ${CART_COLUMNS}`
);

/** A new empty cart. */
export async function insertCart(db: Sql, row: { storeId: string; currency: string; email: string | null; expiresAt: Date }): Promise<CartRow> {
  return (await runStatement<CartRow>(db, INSERT, row)).rows[0]!;
}

/** Columns a cart change may set on the cart row, by field. */
const WRITABLE = {
  discountId: 'discount_id',
  discountCode: 'discount_code',
  shippingMethodId: 'shipping_method_id',
  shippingCountry: 'shipping_country',
  shippingRegion: 'shipping_region',
  shippingPostcode: 'shipping_postcode',
  shippingMethodDropped: 'shipping_method_dropped'
} as const;

export type CartColumns = Partial<Pick<CartRow, keyof typeof WRITABLE>>;

/**
 * Writes a change's columns with the new expiry and returns the cart with its lines, in one
 * statement (the lines are read after the change's own writes, which ran before it).
 */
const writeStatements = new Map<string, Statement>();

export async function writeCart(trx: Sql, storeId: string, cartId: string, columns: CartColumns, expiresAt: Date): Promise<{ cart: CartRow; lines: CartLine[] }> {
  const fields = changedFields(columns);
  const statement = statementFor(writeStatements, fields, (sets) =>
    `with c as (update carts set ${sets}, updated_at = now() where id = :cartId and store_id = :storeId returning ${CART_COLUMNS})
     select c.*, ${linesJson('c.id')} as lines from c`
  );
  const result = await runStatement<CartRow & { lines: LineRow[] }>(trx, statement, { ...fieldValues(fields, columns), expiresAt, cartId, storeId });
  const { lines, ...cart } = result.rows[0]!;
  return { cart, lines: lines.map(toCartLine) };
}

const changedFields = (columns: CartColumns) => (Object.keys(WRITABLE) as Array<keyof typeof WRITABLE>).filter((field) => columns[field] !== undefined);

const fieldValues = (fields: Array<keyof typeof WRITABLE>, columns: CartColumns) =>
  Object.fromEntries(fields.map((field) => [field, columns[field] ?? null]));

/** The statement for one set of changed columns (at most 2^7 shapes, a handful in use), `sets` being their SET list with the expiry's. */
function statementFor(cache: Map<string, Statement>, fields: Array<keyof typeof WRITABLE>, text: (sets: string) => string): Statement {
  const key = fields.join(',');
  let statement = cache.get(key);
  if (!statement) {
    statement = defineStatement(text([...fields.map((field) => `${WRITABLE[field]} = :${field}`), 'expires_at = :expiresAt'].join(', ')));
    cache.set(key, statement);
  }
  return statement;
}

/**
 * The change most carts see, in one autocommit statement: set the columns and push the expiry of a
 * live open cart that never opened a checkout (so no session's stock depends on its lines), and
 * return it with its lines. The UPDATE takes the row lock; PostgreSQL re-checks the WHERE on the
 * row as it is once the lock is held, so a checkout opened meanwhile, or any change since the
 * snapshot the lines are read with (unchangedSinceSnapshot), makes the cart drop out. Returns
 * undefined then, and when the cart is not such a cart: the caller takes the locked path
 * (lockCart), which also tells 404 from 409.
 */
const touchStatements = new Map<string, Statement>();

export async function touchOpenCart(db: Sql, storeId: string, cartId: string, columns: CartColumns, expiresAt: Date): Promise<{ cart: CartRow; lines: CartLine[] } | undefined> {
  const fields = changedFields(columns);
  const statement = statementFor(touchStatements, fields, (sets) =>
    `with c as (
       update carts c set ${sets}, updated_at = now()
        where c.id = :cartId and c.store_id = :storeId and c.status = 'open' and c.expires_at > now() and not c.checkout_opened and ${unchangedSinceSnapshot(':cartId')}
       returning ${CART_COLUMNS}
     )
     select c.*, ${linesJson('c.id')} as lines from c`
  );
  const row = (await runStatement<CartRow & { lines: LineRow[] }>(db, statement, { ...fieldValues(fields, columns), expiresAt, cartId, storeId })).rows[0];
  if (!row) return undefined;
  const { lines, ...cart } = row;
  return { cart, lines: lines.map(toCartLine) };
}

const ADD_TO_OPEN_CART = defineStatement(
  `with v as (
     select v.id, v.product_id, v.price, v.sku, v.title, p.title as product_title, v.inventory_quantity, v.inventory_policy, v.weight_grams, v.requires_shipping, v.tax_class,
            case when v.inventory_policy = 'continue' then :max else least(:max, v.inventory_quantity) end as line_limit
       from product_variants v join products p on p.store_id = v.store_id and p.id = v.product_id
      where v.id = :variantId and v.store_id = :storeId and p.status = 'active' and v.archived_at is null
   ), c as (
     update carts c set expires_at = :expiresAt, updated_at = now()
      where c.id = :cartId and c.store_id = :storeId and c.status = 'open' and c.expires_at > now() and not c.checkout_opened
        and ${unchangedSinceSnapshot(':cartId')}
        and exists (select 1 from v where coalesce((select quantity from cart_items where store_id = :storeId and cart_id = :cartId and variant_id = v.id), 0) + :quantity <= v.line_limit)
     returning ${CART_COLUMNS}
   ), written as (
     insert into cart_items (cart_id, store_id, variant_id, product_id, quantity)
     select c.id, :storeId, v.id, v.product_id, :quantity from c, v
     on conflict (store_id, cart_id, variant_id) do update set quantity = cart_items.quantity + excluded.quantity
      where cart_items.quantity + excluded.quantity <= (select line_limit from v)
     returning id, quantity, created_at
   ), l as (
     ${lineRowsSql(':cartId')} and i.variant_id <> :variantId
     union all
     select w.id, v.id, v.product_id, w.quantity, v.price, v.sku, v.title, v.product_title, v.inventory_quantity, v.inventory_policy, true, w.created_at,
            v.weight_grams, v.requires_shipping, v.tax_class
       from written w, v
   )
   select c.*, (select json_agg(l order by l."addedAt", l.id) from l) as lines from c where exists (select 1 from written)`
);

/**
 * Adds to a line of a live open cart that never opened a checkout, in one autocommit statement
 * that also pushes the expiry and returns the cart with its lines: the snapshot's other lines plus
 * the line as written. Like touchOpenCart, the cart drops out when it changed since the snapshot,
 * so those other lines are current. The line limit (`max`, or the stock of a `deny` variant) is
 * checked on the line as read and again under the line's own lock (ON CONFLICT ... WHERE).
 * Undefined when nothing was added (no such cart, a checkout opened, a change meanwhile, not for
 * sale, over the limit): the caller takes the locked path, which says why. (A cart whose line was
 * refused only under the line's lock keeps its pushed expiry: the shopper was there.)
 */
export async function addToOpenCart(
  db: Sql,
  storeId: string,
  cartId: string,
  item: { variantId: string; quantity: number },
  max: number,
  expiresAt: Date
): Promise<{ cart: CartRow; lines: CartLine[] } | undefined> {
  const result = await runStatement<CartRow & { lines: LineRow[] }>(db, ADD_TO_OPEN_CART, { cartId, storeId, variantId: item.variantId, quantity: item.quantity, max, expiresAt });
  const row = result.rows[0];
  if (!row) return undefined;
  const { lines, ...cart } = row;
  return { cart, lines: lines.map(toCartLine) };
}
