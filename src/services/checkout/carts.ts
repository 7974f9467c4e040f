import type { Sql } from '../../db/transaction.js';
import type { AppContext } from '../../context.js';
import { conflict, notFound, validationFailed } from '../../errors.js';
import { PREPARED } from '../../db/prepared-statements.js';
import { cancelSessions, stockChanged } from './reservations.js';
import { addToOpenCart, assertLive, insertCart, lockCart, readCart, touchOpenCart, writeCart, type CartColumns } from './cart-rows.js';
import { cachedStore, type StoreRow } from '../stores/index.js';
import { priceCart, toCartDto, type CartRow, type PricedCart } from './cart-view.js';
import { discountProblem, findDiscountByCode, notApplicable } from '../discounts/index.js';
import { eligibleMethods, shipsTo } from './shipping.js';
import { storeTaxes, type CartTaxes } from './cart-taxes.js';
import { normalizeRegion } from '../taxes/index.js';
import { withTransaction } from '../../platform/with-transaction.js';

export interface CartItemInput {
  variantId: string;
  quantity: number;
}

export const MAX_LINE_QUANTITY = 10_000;

export const cartNotOpen = () => conflict('cart_not_open', 'This cart is completed and can no longer change');
const expiresAt = (ctx: AppContext) => new Date(Date.now() + ctx.config.checkout.cartTtlHours * 3600_000);

/** The cart as the shopper sees it, priced (the cart and its lines in one statement), with its store. */
/** The store (cached) with how it taxes carts. */
async function pricingStore(ctx: AppContext, storeId: string): Promise<{ store: StoreRow; taxes: CartTaxes }> {
  const store = await cachedStore(ctx, storeId);
  return { store, taxes: await storeTaxes(ctx, store) };
}

async function readPricedCart(ctx: AppContext, storeId: string, cartId: string, address?: { country?: string; region?: string }) {
  const [{ cart, lines }, { store, taxes }] = await Promise.all([readCart(ctx.db, storeId, cartId), pricingStore(ctx, storeId)]);
  const at = address?.country ? { ...taxes, address: { country: address.country, region: address.region ? normalizeRegion(address.country, address.region) : null } } : taxes;
  return { priced: await priceCart(ctx.db, assertLive(cart), store.shippingMethods, lines, at), store };
}

/** A cart, taxed at its address, or at `country`/`region` when the read names them (a shopper's estimate before checkout). */
export async function getCart(ctx: AppContext, storeId: string, cartId: string, address?: { country?: string; region?: string }) {
  return { cart: toCartDto((await readPricedCart(ctx, storeId, cartId, address)).priced) };
}

async function assertSellable(trx: Sql, storeId: string, variantId: string, quantity: number) {
  const variant = await trx('productVariants as v')
    .join('products as p', 'p.id', 'v.productId')
    .where({ 'v.id': variantId, 'v.storeId': storeId, 'p.status': 'active' })
    .whereNull('v.archivedAt')
    .first('v.id', 'v.productId', 'v.inventoryQuantity', 'v.inventoryPolicy');
  if (!variant) throw notForSale();
  if (variant.inventoryPolicy === 'deny' && quantity > variant.inventoryQuantity) throw notEnoughStock(variant.inventoryQuantity);
  return variant as { id: string; productId: string };
}

const notForSale = () => validationFailed([{ path: 'variantId', message: 'no such product variant for sale in this store' }]);
const notEnoughStock = (inStock: number) =>
  conflict('insufficient_inventory', 'Not enough stock for this quantity', [{ path: 'quantity', message: `only ${Math.max(0, inStock)} in stock` }]);
const overLineLimit = () => validationFailed([{ path: 'quantity', message: `at most ${MAX_LINE_QUANTITY} of one variant` }]);

/**
 * Adds to a line (or makes it) in one statement: the variant must be for sale, the line stays
 * within MAX_LINE_QUANTITY and, for a `deny` variant, within stock. The cart row is locked by the
 * caller, so the line's quantity cannot move underneath; when nothing was written, the returned
 * figures say why.
 */
async function addLine(trx: Sql, storeId: string, cartId: string, item: CartItemInput) {
  const result = await trx.raw(
    `with v as (
       select v.id, v.product_id, v.inventory_quantity, v.inventory_policy,
              coalesce((select quantity from cart_items where store_id = :storeId and cart_id = :cartId and variant_id = v.id), 0) + :quantity as wanted
         from product_variants v join products p on p.store_id = v.store_id and p.id = v.product_id
        where v.id = :variantId and v.store_id = :storeId and p.status = 'active' and v.archived_at is null
     ), written as (
       insert into cart_items (cart_id, store_id, variant_id, product_id, quantity)
       select :cartId, :storeId, v.id, v.product_id, :quantity from v
        where v.wanted <= :max and (v.inventory_policy = 'continue' or v.wanted <= v.inventory_quantity)
       on conflict (store_id, cart_id, variant_id) do update set quantity = cart_items.quantity + excluded.quantity
       returning 1
     )
     select v.inventory_quantity, v.wanted, exists (select 1 from written) as written from v`,
    { cartId, storeId, variantId: item.variantId, quantity: item.quantity, max: MAX_LINE_QUANTITY }
  ).options(PREPARED);
  const row = result.rows[0] as { inventoryQuantity: number; wanted: number; written: boolean } | undefined;
  if (!row) throw notForSale();
  if (row.written) return;
  if (row.wanted > MAX_LINE_QUANTITY) throw overLineLimit();
  throw notEnoughStock(row.inventoryQuantity);
}

/**
 * A new cart. Without items it is one INSERT (no transaction, nothing to price); with items the
 * lines are added and priced in the same transaction.
 */
export async function createCart(ctx: AppContext, storeId: string, input: { email?: string; items?: CartItemInput[] }) {
  const { store, taxes } = await pricingStore(ctx, storeId);
  const row = { storeId, currency: store.currency, email: input.email ?? null, expiresAt: expiresAt(ctx) };
  if (!input.items?.length) {
    const cart = await insertCart(ctx.db, row);
    return { cart: toCartDto(await priceCart(ctx.db, cart, store.shippingMethods, [], taxes)) };
  }
  const view = await withTransaction(ctx, async (trx) => {
    const [cart] = (await trx('carts').insert(row).returning('*')) as CartRow[];
    for (const item of input.items ?? []) await addLine(trx, storeId, cart!.id, item);
    return toCartDto(await priceCart(trx, cart!, store.shippingMethods, undefined, taxes));
  }, { pipelined: true });
  return { cart: view };
}

/**
 * Every cart change: the cart row locked, refused once completed, any pending checkout session
 * cancelled (its stock goes back: the cart it reserved for no longer exists), expiry pushed out.
 */
async function changeCart(
  ctx: AppContext,
  storeId: string,
  cartId: string,
  change: (trx: Sql, cart: CartRow, store: StoreRow, taxes: CartTaxes) => Promise<CartColumns | void>
) {
  const { store, taxes } = await pricingStore(ctx, storeId);
  const { released, view } = await withTransaction(ctx, async (trx) => {
    const { cart, pendingSessions } = await lockCart(trx, storeId, cartId);
    if (cart.status !== 'open') throw cartNotOpen();
    const releasedStock = await cancelSessions(trx, pendingSessions);
    const columns = (await change(trx, cart, store, taxes)) ?? {};
    const written = await writeCart(trx, storeId, cartId, columns, expiresAt(ctx));
    return { released: releasedStock, view: toCartDto(await priceCart(trx, written.cart, store.shippingMethods, written.lines, taxes)) };
  }, { pipelined: true });
  await stockChanged(ctx, storeId, released);
  return { cart: view };
}

export async function addCartItem(ctx: AppContext, storeId: string, cartId: string, item: CartItemInput) {
  const added = await addToOpenCart(ctx.db, storeId, cartId, item, MAX_LINE_QUANTITY, expiresAt(ctx));
  if (added) {
    const { store, taxes } = await pricingStore(ctx, storeId);
    return { cart: toCartDto(await priceCart(ctx.db, added.cart, store.shippingMethods, added.lines, taxes)) };
  }
  return changeCart(ctx, storeId, cartId, (trx) => addLine(trx, storeId, cartId, item));
}

export const updateCartItem = (ctx: AppContext, storeId: string, cartId: string, itemId: string, quantity: number) =>
  changeCart(ctx, storeId, cartId, async (trx) => {
    const item = await trx('cartItems').where({ storeId, id: itemId, cartId }).first('variantId');
    if (!item) throw notFound('Cart item');
    if (quantity === 0) {
      await trx('cartItems').where({ storeId, id: itemId }).delete();
      return;
    }
    await assertSellable(trx, storeId, item.variantId, quantity);
    await trx('cartItems').where({ storeId, id: itemId }).update({ quantity });
  });

export const removeCartItem = (ctx: AppContext, storeId: string, cartId: string, itemId: string) =>
  changeCart(ctx, storeId, cartId, async (trx) => {
    const deleted = await trx('cartItems').where({ storeId, id: itemId, cartId }).delete();
    if (!deleted) throw notFound('Cart item');
  });

export const applyCartDiscount = (ctx: AppContext, storeId: string, cartId: string, code: string) =>
  changeCart(ctx, storeId, cartId, async (trx, cart, store, taxes) => {
    const discount = await findDiscountByCode(trx, storeId, code);
    const priced: PricedCart = await priceCart(trx, cart, store.shippingMethods, undefined, taxes);
    const problem = discountProblem(discount, priced.totals.subtotal);
    if (problem) throw notApplicable(problem);
    return { discountId: discount!.id, discountCode: discount!.code };
  });

export const removeCartDiscount = (ctx: AppContext, storeId: string, cartId: string) =>
  changeCart(ctx, storeId, cartId, async () => ({ discountId: null, discountCode: null }));

export async function selectShippingMethod(ctx: AppContext, storeId: string, cartId: string, input: { shippingMethodId: string; country?: string }) {
  // Whether the method ships to the cart's country needs the cart's country, unless it ships
  // everywhere or the request names the country: only then can the cart go unread.
  const { store, taxes } = await pricingStore(ctx, storeId);
  const method = store.shippingMethods.find((m) => m.id === input.shippingMethodId);
  if (method && (input.country !== undefined || !method.countries?.length) && shipsTo(method, input.country ?? null)) {
    const columns = { shippingMethodId: method.id, ...(input.country !== undefined ? { shippingCountry: input.country } : {}) };
    const touched = await touchOpenCart(ctx.db, storeId, cartId, columns, expiresAt(ctx));
    if (touched) return { cart: toCartDto(await priceCart(ctx.db, touched.cart, store.shippingMethods, touched.lines, taxes)) };
  }
  return changeCart(ctx, storeId, cartId, async (trx, cart, store) => {
    const country = input.country ?? cart.shippingCountry;
    const method = store.shippingMethods.find((m) => m.id === input.shippingMethodId);
    if (!method) throw validationFailed([{ path: 'shippingMethodId', message: 'no such shipping method in this store' }]);
    if (!shipsTo(method, country)) throw validationFailed([{ path: 'shippingMethodId', message: `this method does not ship to ${country}` }]);
    return { shippingMethodId: method.id, shippingCountry: country ?? null };
  });
}

export async function listShippingMethods(ctx: AppContext, storeId: string, cartId: string, country?: string) {
  const { priced, store } = await readPricedCart(ctx, storeId, cartId);
  return { shippingMethods: eligibleMethods(store.shippingMethods, country ?? priced.cart.shippingCountry, priced.totals.subtotal) };
}

/** Scheduled: deletes carts past their expiry that hold no pending checkout session. */
export async function deleteExpiredCarts(ctx: AppContext, batch = 1000): Promise<{ deleted: number }> {
  let deleted = 0;
  for (;;) {
    const result = await ctx.db.raw(
      `/* cross-store: expired carts sweep */ delete from carts where id in (
         select c.id from carts c where c.expires_at < now()
            and not exists (select 1 from checkout_sessions s where s.store_id = c.store_id and s.cart_id = c.id and s.status = 'pending')
          limit ? for update skip locked)`,
      [batch]
    );
    deleted += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < batch) return { deleted };
  }
}
