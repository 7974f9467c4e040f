import type { Sql } from '../../db/transaction.js';
import type { AppContext } from '../../context.js';
import { conflict, notFound, validationFailed } from '../../errors.js';
import { PREPARED } from '../../db/prepared-statements.js';
import { cancelSessions, stockChanged } from './reservations.js';
import { addToOpenCart, assertLive, insertCart, lockCart, readCart, touchOpenCart, writeCart, type CartColumns } from './cart-rows.js';
import { cachedStore, type StoreRow } from '../stores/index.js';
import { priceCart, toCartDto, type CartLine, type CartRow, type PricedCart } from './cart-view.js';
import { discountProblem, findDiscountByCode, notApplicable } from '../discounts/index.js';
import { cachedZones, checkRate, isApplied, zoneCoversAnywhere, type Destination, type ShippingZone } from '../shipping/index.js';
import { cartContents, destinationOf, eligibleMethods } from './shipping.js';
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

/** The store (cached) with how it taxes carts, and its shipping zones (cached). */
async function pricingStore(ctx: AppContext, storeId: string): Promise<{ store: StoreRow; zones: ShippingZone[]; taxes: CartTaxes }> {
  const [store, zones] = await Promise.all([cachedStore(ctx, storeId), cachedZones(ctx, storeId)]);
  return { store, zones, taxes: await storeTaxes(ctx, store) };
}

/**
 * A cart change made the chosen rate inapplicable (items, destination, or the store's zones): the
 * rate is dropped from the cart and the reason kept on it (`shippingMethodDropped`), in the change's
 * transaction or right after its autocommit statement. Only while the rate is still the chosen one.
 */
async function dropRefusedRate(db: Sql, priced: PricedCart): Promise<PricedCart> {
  const { cart, shippingRefusal } = priced;
  if (!shippingRefusal || !cart.shippingMethodId) return priced;
  const dropped = { id: cart.shippingMethodId, reason: shippingRefusal.reason };
  await db('carts')
    .where({ storeId: cart.storeId, id: cart.id, shippingMethodId: cart.shippingMethodId })
    .update({ shippingMethodId: null, shippingMethodDropped: JSON.stringify(dropped) });
  return { ...priced, cart: { ...cart, shippingMethodId: null, shippingMethodDropped: dropped }, shippingRefusal: null, shippingMethodDropped: dropped };
}

/** Prices a changed cart and drops a chosen rate that no longer applies. */
const priceChanged = async (db: Sql, cart: CartRow, zones: ShippingZone[], lines: CartLine[] | undefined, taxes: CartTaxes) =>
  dropRefusedRate(db, await priceCart(db, cart, zones, lines, taxes));

/** The cart as the shopper sees it, priced (the cart and its lines in one statement), with its store's shipping zones; taxed at `address` when given. */
async function readPricedCart(ctx: AppContext, storeId: string, cartId: string, address?: { country?: string; region?: string }) {
  const [{ cart, lines }, { zones, taxes }] = await Promise.all([readCart(ctx.db, storeId, cartId), pricingStore(ctx, storeId)]);
  const at = address?.country ? { ...taxes, address: { country: address.country, region: address.region ? normalizeRegion(address.country, address.region) : null } } : taxes;
  return { priced: await priceCart(ctx.db, assertLive(cart), zones, lines, at), zones };
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
  const { store, zones, taxes } = await pricingStore(ctx, storeId);
  const row = { storeId, currency: store.currency, email: input.email ?? null, expiresAt: expiresAt(ctx) };
  if (!input.items?.length) {
    const cart = await insertCart(ctx.db, row);
    return { cart: toCartDto(await priceCart(ctx.db, cart, zones, [], taxes)) };
  }
  const view = await withTransaction(ctx, async (trx) => {
    const [cart] = (await trx('carts').insert(row).returning('*')) as CartRow[];
    for (const item of input.items ?? []) await addLine(trx, storeId, cart!.id, item);
    return toCartDto(await priceCart(trx, cart!, zones, undefined, taxes));
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
  change: (trx: Sql, cart: CartRow, store: StoreRow, zones: ShippingZone[], taxes: CartTaxes) => Promise<CartColumns | void>
) {
  const { store, zones, taxes } = await pricingStore(ctx, storeId);
  const { released, view } = await withTransaction(ctx, async (trx) => {
    const { cart, pendingSessions } = await lockCart(trx, storeId, cartId);
    if (cart.status !== 'open') throw cartNotOpen();
    const releasedStock = await cancelSessions(trx, pendingSessions);
    const columns = (await change(trx, cart, store, zones, taxes)) ?? {};
    const written = await writeCart(trx, storeId, cartId, columns, expiresAt(ctx));
    return { released: releasedStock, view: toCartDto(await priceChanged(trx, written.cart, zones, written.lines, taxes)) };
  }, { pipelined: true });
  await stockChanged(ctx, storeId, released);
  return { cart: view };
}

export async function addCartItem(ctx: AppContext, storeId: string, cartId: string, item: CartItemInput) {
  const added = await addToOpenCart(ctx.db, storeId, cartId, item, MAX_LINE_QUANTITY, expiresAt(ctx));
  if (added) {
    const { zones, taxes } = await pricingStore(ctx, storeId);
    return { cart: toCartDto(await priceChanged(ctx.db, added.cart, zones, added.lines, taxes)) };
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
  changeCart(ctx, storeId, cartId, async (trx, cart, _store, zones, taxes) => {
    const discount = await findDiscountByCode(trx, storeId, code);
    const priced: PricedCart = await priceCart(trx, cart, zones, undefined, taxes);
    const problem = discountProblem(discount, priced.totals.subtotal);
    if (problem) throw notApplicable(problem);
    return { discountId: discount!.id, discountCode: discount!.code };
  });

export const removeCartDiscount = (ctx: AppContext, storeId: string, cartId: string) =>
  changeCart(ctx, storeId, cartId, async () => ({ discountId: null, discountCode: null }));

/** The destination part of an address a shopper gives before checkout. */
export interface DestinationInput {
  country: string;
  region?: string | null;
  postalCode?: string | null;
}

const destinationColumns = (input: DestinationInput) => ({
  shippingCountry: input.country,
  shippingRegion: input.region?.trim() || null,
  shippingPostcode: input.postalCode?.trim() || null
});

const refusalPath = { country: 'country', region: 'region', postalCode: 'postalCode' } as const;

/**
 * Chooses a rate. With `country` (and optionally `region`, `postalCode`) the request also sets the
 * cart's destination; otherwise the cart's is used. A rate that does not apply to the destination
 * or the contents is refused (422, the reason in details). A cart whose lines never ship takes the
 * choice and drops it at once (`shippingMethodDropped` says why): it needs none.
 */
export async function selectShippingMethod(ctx: AppContext, storeId: string, cartId: string, input: { shippingMethodId: string } & Partial<DestinationInput>) {
  const { zones, taxes } = await pricingStore(ctx, storeId);
  const given = input.country !== undefined ? destinationColumns(input as DestinationInput) : null;
  // The one-statement path, when the rate applies whatever the cart holds (its price may still
  // depend on it) and to whatever destination the cart has: a rate of a zone covering everywhere,
  // or one covering the destination the request names.
  const zone = zones.find((z) => z.rates.some((r) => r.id === input.shippingMethodId));
  const rate = zone?.rates.find((r) => r.id === input.shippingMethodId);
  const neverRefusedByContents = rate && (rate.type === 'flat' || rate.type === 'pickup' || rate.bands?.[rate.bands.length - 1]?.upTo === null);
  const anyContents = { shippingRequired: true, weightGrams: 0, subtotal: 0 };
  const coversDestination =
    zone && rate && (rate.type === 'pickup' || zoneCoversAnywhere(zone) || (given !== null && isApplied(checkRate(zones, rate.id, destinationOf(given), anyContents))));
  if (neverRefusedByContents && coversDestination) {
    const columns = { shippingMethodId: rate!.id, shippingMethodDropped: null, ...(given ?? {}) };
    const touched = await touchOpenCart(ctx.db, storeId, cartId, columns, expiresAt(ctx));
    if (touched) return { cart: toCartDto(await priceChanged(ctx.db, touched.cart, zones, touched.lines, taxes)) };
  }
  return changeCart(ctx, storeId, cartId, async (trx, cart, _store, zones, cartTaxes) => {
    const destination: Destination = destinationOf(given ?? cart);
    const lines = (await priceCart(trx, cart, [], undefined, cartTaxes)).lines;
    const contents = cartContents(lines, lines.reduce((sum, line) => sum + line.lineTotal, 0));
    const result = checkRate(zones, input.shippingMethodId, destination, contents);
    if (!isApplied(result) && contents.shippingRequired) {
      if (!zones.some((z) => z.rates.some((r) => r.id === input.shippingMethodId))) {
        throw validationFailed([{ path: 'shippingMethodId', message: 'no such shipping method in this store' }]);
      }
      throw validationFailed([{ path: result.field ? refusalPath[result.field] : 'shippingMethodId', message: `this method ${result.reason}` }]);
    }
    return { shippingMethodId: input.shippingMethodId, shippingMethodDropped: null, ...(given ?? {}) };
  });
}

/**
 * Sets where the cart ships (country, optionally region and postcode) before checkout; the chosen
 * rate stays if it still applies, else it is dropped with the reason (`shippingMethodDropped`).
 */
export const setShippingDestination = (ctx: AppContext, storeId: string, cartId: string, input: DestinationInput) =>
  changeCart(ctx, storeId, cartId, async () => destinationColumns(input));

/**
 * The rates that apply to the cart (its destination, or the one the query names, and its
 * contents), priced. A cart whose lines never ship needs none: an empty list, `shippingRequired: false`.
 */
export async function listShippingMethods(ctx: AppContext, storeId: string, cartId: string, query: Partial<DestinationInput> = {}) {
  const { priced, zones } = await readPricedCart(ctx, storeId, cartId);
  const destination = query.country !== undefined ? destinationOf(destinationColumns(query as DestinationInput)) : destinationOf(priced.cart);
  const contents = cartContents(priced.lines, priced.totals.subtotal);
  return { shippingMethods: eligibleMethods(zones, destination, contents), shippingRequired: contents.shippingRequired };
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
