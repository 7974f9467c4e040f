import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { conflict, notFound, validationFailed } from '../../errors.js';
import { defineStatement, runStatements, runStatementsAndCommit, type StatementCall, type StatementResult } from '../../db/prepared-statements.js';
import { lockCart, readCart, assertLive } from './cart-rows.js';
import { isTaxExempt, storeTaxes, type CartTaxes } from './cart-taxes.js';
import { normalizeRegion, taxProviderOf, type TaxLine, type TaxResult } from '../taxes/index.js';
import type { Taxer } from './totals.js';
import { cartNotOpen } from './carts.js';
import { priceCart, toCartDto } from './cart-view.js';
import { notApplicable, redeemDiscount } from '../discounts/index.js';
import { chooseProvider, type ProviderName } from '../payments/index.js';
import type { PaymentState } from '../payments/index.js';
import { cachedStore } from '../stores/index.js';
import { cachedZones, offersShipping, type ShippingZone } from '../shipping/index.js';
import { cancelSessions, isStockRefusal, notEnoughStock, releaseSession, reservationOrder, reserveStock, stockChanged, type ReservationLine } from './reservations.js';
import { availabilityFlipped, TAKE_STOCK_CTES, takeReason } from '../catalog/index.js';
import { withTransaction } from '../../platform/with-transaction.js';

export interface Address {
  firstName: string;
  lastName: string;
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postalCode: string;
  country: string;
  phone?: string;
}

export interface CheckoutSessionInput {
  email: string;
  shippingAddress: Address;
  billingAddress?: Address;
  provider?: ProviderName;
}

/** A line of the session's snapshot: what the order's line will be. */
export interface OrderSnapshotLine {
  variantId: string;
  productId: string;
  title: string;
  sku: string | null;
  quantity: number;
  unitPrice: number;
  lineTotal: number;
  /** The line's share of an order discount (minor units); its taxable amount is lineTotal less it. */
  discountAmount?: number;
  taxLines?: TaxLine[];
}

/** What the order is made from: frozen when the session opens, so the price paid is the price shown. */
export interface SessionSnapshot {
  lines: OrderSnapshotLine[];
  subtotal: number;
  discountTotal: number;
  shippingTotal: number;
  /** Absent on sessions opened before taxes (0). */
  taxTotal?: number;
  total: number;
  pricesIncludeTax?: boolean;
  shippingTaxLines?: TaxLine[];
  /** Who computed the tax and its reference (Stripe Tax: the calculation, turned into a transaction with the order). */
  taxProvider?: string;
  taxReference?: string | null;
  discountCode: string | null;
  shippingMethod: { id: string; name: string; price: number } | null;
}

export const SESSION_STATUSES = ['pending', 'completed', 'expired', 'cancelled'] as const;

export interface SessionRow {
  id: string;
  storeId: string;
  cartId: string;
  status: (typeof SESSION_STATUSES)[number];
  provider: ProviderName;
  amount: number;
  currency: string;
  email: string;
  shippingAddress: Address;
  billingAddress: Address | null;
  snapshot: SessionSnapshot;
  discountId: string | null;
  paymentIntentId: string | null;
  clientSecret: string | null;
  paymentStatus: PaymentState;
  orderId: string | null;
  expiresAt: Date;
  createdAt: Date;
}

export const toSessionDto = (row: SessionRow) => ({
  id: row.id,
  status: row.status,
  provider: row.provider,
  amount: Number(row.amount),
  currency: row.currency,
  ...(row.clientSecret ? { clientSecret: row.clientSecret } : {}),
  expiresAt: row.expiresAt,
  createdAt: row.createdAt
});

export const SESSION_COLUMNS =
  'id, store_id, cart_id, status, provider, amount, currency, email, shipping_address, billing_address, snapshot, discount_id, payment_intent_id, client_secret, payment_status, order_id, expires_at, created_at';

/**
 * The session and the cart's new email and country in one statement; for a cart of one variant
 * (the usual cart) the stock is taken in it too (TAKE_STOCK_CTES), and the statement fails with
 * refuse_insufficient_stock() when it was not there, undoing the session with it.
 */
const insertSessionSql = (takingStock: boolean) => `with c as (update carts set email = :email, shipping_country = :country, shipping_region = :region, shipping_postcode = :postcode,
     checkout_opened = true, updated_at = now() where id = :cartId returning updated_at),
   s as (
     insert into checkout_sessions (id, store_id, cart_id, provider, amount, currency, email, shipping_address, billing_address, snapshot, discount_id, expires_at)
     values (:sessionId, :storeId, :cartId, :provider, :amount, :currency, :email, :shippingAddress::jsonb, :billingAddress::jsonb, :snapshot::jsonb, :discountId, :expiresAt)
     returning ${SESSION_COLUMNS}
   )${takingStock ? `, ${TAKE_STOCK_CTES}` : ''}
   select s.*, (select updated_at from c) as cart_updated_at${
     takingStock
       ? `, (select json_build_object('inventoryQuantity', inventory_quantity, 'inventoryPolicy', inventory_policy) from v) as taken,
          case when not exists (select 1 from v) then refuse_insufficient_stock(:variantId) end as refused`
       : ''
   } from s`;

const INSERT_SESSION = defineStatement(insertSessionSql(false));
const INSERT_SESSION_TAKING_STOCK = defineStatement(insertSessionSql(true));

/**
 * Opens a checkout session: validates the cart (non-empty, for sale, in stock, shipping chosen and
 * shipping to the address, discount still valid), then in ONE transaction locks the cart, cancels
 * any earlier session of it, reserves the stock (variants locked in id order) and counts the
 * discount use, both held until the session expires. Stripe's PaymentIntent is created after the
 * commit (never hold row locks across a network call), keyed by the session id.
 */
export async function createCheckoutSession(ctx: AppContext, storeId: string, cartId: string, input: CheckoutSessionInput) {
  const [store, zones] = await Promise.all([cachedStore(ctx, storeId), cachedZones(ctx, storeId)]);
  const provider = await chooseProvider(ctx, store, input.provider);
  const sessionId = randomUUID();
  const expiresAt = new Date(Date.now() + ctx.config.checkout.sessionTtlSec * 1000);
  const country = input.shippingAddress.country;
  const destination = { shippingCountry: country, shippingRegion: input.shippingAddress.region?.trim() || null, shippingPostcode: input.shippingAddress.postalCode.trim() || null };
  const region = normalizeRegion(country, input.shippingAddress.region) || null;
  const taxes = await checkoutTaxes(ctx, store, zones, storeId, cartId, input, { country, region }, destination);

  // The line whose stock the session statement found missing: the 409 says how much is left.
  let refused: ReservationLine | undefined;
  const { session, released, cartView } = await withTransaction(ctx, async (trx) => {
    const { cart, lines, pendingSessions } = await lockCart(trx, storeId, cartId, { readLines: true });
    if (cart.status !== 'open') throw cartNotOpen();
    const releasedEarlier = await cancelSessions(trx, pendingSessions);
    // Lines read with the lock are current unless earlier sessions were just cancelled (their stock came back).
    const priced = await priceCart(trx, { ...cart, ...destination }, zones, pendingSessions.length ? undefined : lines, taxes);
    if (priced.lines.length === 0) throw validationFailed([{ path: 'items', message: 'the cart is empty' }]);
    const gone = priced.lines.find((line) => !line.available);
    if (gone) throw conflict('insufficient_inventory', `${gone.title} is no longer for sale`, [{ path: `items.${gone.id}`, message: 'no longer for sale' }]);
    // A cart whose lines never ship needs no rate; a store that ships nothing (digital goods) has none to choose.
    if (priced.shippingRequired) {
      if (!cart.shippingMethodId && offersShipping(zones)) {
        const dropped = cart.shippingMethodDropped ? ` (${cart.shippingMethodDropped.reason}: it was dropped)` : '';
        throw validationFailed([{ path: 'shippingMethod', message: `choose a shipping method first${dropped}` }]);
      }
      const refusal = priced.shippingRefusal;
      if (refusal) {
        const field = refusal.field ?? 'country';
        const message = refusal.field === 'country' ? `the chosen shipping method does not ship to ${country}` : `the chosen shipping method ${refusal.reason}`;
        throw validationFailed([{ path: refusal.field ? `shippingAddress.${field}` : 'shippingMethod', message }]);
      }
    }
    if (priced.discountIssue) throw notApplicable(priced.discountIssue);

    const snapshot: SessionSnapshot = {
      lines: priced.lines.map((line, index) => ({
        variantId: line.variantId,
        productId: line.productId,
        title: line.title,
        sku: line.sku,
        quantity: line.quantity,
        unitPrice: line.unitPrice,
        lineTotal: line.lineTotal,
        discountAmount: priced.tax.lineDiscounts[index] ?? 0,
        taxLines: priced.tax.lineTaxes[index] ?? []
      })),
      ...priced.totals,
      shippingTaxLines: priced.tax.shippingTaxLines,
      taxProvider: store.taxProvider ?? 'rates',
      taxReference: priced.tax.reference,
      discountCode: priced.discount && !priced.discountIssue ? priced.discount.code : null,
      shippingMethod: priced.shippingMethod
    };
    // One variant's stock is taken with the session; several are taken one by one, in variant order.
    const reservations = reservationOrder(snapshot.lines);
    const single = reservations.length === 1 ? reservations[0]! : null;
    const discountId = priced.discount && !priced.discountIssue ? priced.discount.id : null;
    const call: StatementCall = {
      statement: single ? INSERT_SESSION_TAKING_STOCK : INSERT_SESSION,
      values: {
        ...(single ? { quantity: single.quantity, variantId: single.variantId, reason: takeReason(sessionId) } : {}),
        sessionId,
        storeId,
        cartId,
        country,
        region: destination.shippingRegion,
        postcode: destination.shippingPostcode,
        provider: provider.name,
        amount: priced.totals.total,
        currency: cart.currency,
        email: input.email,
        shippingAddress: JSON.stringify(input.shippingAddress),
        billingAddress: input.billingAddress ? JSON.stringify(input.billingAddress) : null,
        snapshot: JSON.stringify(snapshot),
        discountId,
        expiresAt
      }
    };
    let inserted: StatementResult[];
    try {
      // With nothing left to do after it (one variant, taken in it; no discount), the COMMIT goes with it.
      inserted = single && !discountId ? await runStatementsAndCommit(trx, [call]) : await runStatements(trx, [call]);
    } catch (error) {
      if (single && isStockRefusal(error)) refused = single;
      throw error;
    }
    const { cartUpdatedAt, taken, refused: _refused, ...row } = inserted[0]!.rows[0] as unknown as SessionRow & {
      cartUpdatedAt: Date;
      taken?: { inventoryQuantity: number; inventoryPolicy: string } | null;
      refused?: null;
    };
    const updatedCart = { ...cart, email: input.email, ...destination, updatedAt: cartUpdatedAt };
    // Lock order everywhere: cart, session, variants (by id), discount, customer, order counter. The
    // shared rows (variants, discount) come last, so they are held only until the commit that follows.
    let soldOut: string[];
    // A one-variant session that got here took its stock (else the statement failed): only whether it sold out is left to tell.
    if (single) soldOut = taken && availabilityFlipped(taken.inventoryPolicy, taken.inventoryQuantity + single.quantity, taken.inventoryQuantity) ? [single.variantId] : [];
    else soldOut = await reserveStock(trx, storeId, sessionId, snapshot.lines);
    if (row.discountId) await redeemDiscount(trx, storeId, row.discountId, priced.totals.subtotal);
    return { session: row, released: [...releasedEarlier, ...soldOut], cartView: toCartDto({ ...priced, cart: updatedCart }) };
  }, { pipelined: true }).catch(async (error: unknown) => {
    throw refused ? await notEnoughStock(ctx.db, storeId, refused) : error;
  });
  await stockChanged(ctx, storeId, released);

  let finalSession: SessionRow = session;
  if (provider.name !== 'manual') {
    try {
      const started = await provider.start(ctx, { storeId, sessionId, amount: Number(session.amount), currency: session.currency, email: input.email });
      [finalSession] = (await ctx.db('checkoutSessions')
        .where({ storeId, id: sessionId })
        .update({ paymentIntentId: started.paymentIntentId, clientSecret: started.clientSecret, updatedAt: ctx.db.fn.now() })
        .returning('*')) as [SessionRow];
    } catch (error) {
      await cancelSession(ctx, storeId, sessionId);
      throw error;
    }
  }
  return { checkoutSession: toSessionDto(finalSession), cart: cartView };
}

/**
 * How the session's cart is taxed. A tax-exempt customer (by the session's email) pays none. The
 * built-in rates are computed inside the session's transaction; a remote provider (Stripe Tax) is
 * asked before it, on the cart as it is now (never a network call under the cart lock), and the
 * transaction checks it prices the same taxable amounts (else 409: the cart changed meanwhile).
 * The provider failing or timing out fails the checkout (503 tax_provider_unavailable).
 */
async function checkoutTaxes(
  ctx: AppContext,
  store: Awaited<ReturnType<typeof cachedStore>>,
  zones: ShippingZone[],
  storeId: string,
  cartId: string,
  input: CheckoutSessionInput,
  address: { country: string; region: string | null },
  destination: { shippingCountry: string; shippingRegion: string | null; shippingPostcode: string | null }
): Promise<CartTaxes> {
  const base = await storeTaxes(ctx, store);
  const provider = taxProviderOf(store.taxProvider);
  if (provider.local && base.rules.length === 0) return base;
  const exempt = await isTaxExempt(ctx.db, storeId, input.email);
  const taxes: CartTaxes = { ...base, exempt, address };
  if (provider.local || exempt) return taxes;
  const { cart, lines } = await readCart(ctx.db, storeId, cartId);
  const current = assertLive(cart);
  // The taxable amounts as the transaction will see them (no taxer yet: only the amounts are read).
  let asked: string | null = null;
  let answer: TaxResult | null = null;
  const probe: Taxer = {
    pricesIncludeTax: base.pricesIncludeTax,
    compute: (taxable) => {
      asked = JSON.stringify(taxable);
      return { lines: taxable.lines.map(() => []), shipping: [] };
    }
  };
  // Priced at the destination the session's transaction prices at (the shipping rate depends on it).
  const preview = await priceCart(ctx.db, { ...current, ...destination }, zones, lines, { ...taxes, override: probe });
  if (preview.lines.length > 0) {
    answer = await provider.calculate(ctx, {
      storeId,
      currency: current.currency,
      address: { country: address.country, region: address.region, postalCode: input.shippingAddress.postalCode, city: input.shippingAddress.city, line1: input.shippingAddress.line1 },
      exempt,
      rules: base.rules,
      input: preview.tax.taxable
    });
  }
  const quoted = asked;
  const result = answer;
  return {
    ...taxes,
    override: {
      pricesIncludeTax: base.pricesIncludeTax,
      compute: (taxable) => {
        if (!result && taxable.lines.length === 0) return { lines: [], shipping: [] };
        if (!result || JSON.stringify(taxable) !== quoted) {
          throw conflict('conflict', 'The cart changed while its tax was being computed; open the checkout again', [{ path: 'cart', message: 'changed during checkout' }]);
        }
        return result;
      }
    }
  };
}

/** Cancels one pending session and gives its stock back (the payment could not start). */
async function cancelSession(ctx: AppContext, storeId: string, sessionId: string) {
  const released = await withTransaction(ctx, async (trx) => {
    const session = await trx('checkoutSessions').where({ id: sessionId, storeId, status: 'pending' }).forUpdate().first('id', 'storeId', 'discountId');
    if (!session) return [];
    const variantIds = await releaseSession(trx, session);
    await trx('checkoutSessions').where({ storeId, id: sessionId }).update({ status: 'cancelled', updatedAt: trx.fn.now() });
    return variantIds;
  });
  await stockChanged(ctx, storeId, released);
}

/**
 * Scheduled: pending sessions past their expiry give their stock and discount use back. Each one
 * is locked cart-first (the order confirm uses), skipping any a confirm holds right now.
 */
export async function releaseExpiredSessions(ctx: AppContext, batch = 200): Promise<{ released: number }> {
  const due = (await ctx.db('checkoutSessions')
    .comment('cross-store: expired checkout sessions sweep')
    .where({ status: 'pending' })
    .where('expiresAt', '<', ctx.db.fn.now())
    .orderBy('expiresAt')
    .limit(batch)
    .select('id', 'storeId', 'cartId')) as Array<{ id: string; storeId: string; cartId: string }>;
  let released = 0;
  const changed = new Map<string, string[]>();
  for (const candidate of due) {
    await withTransaction(ctx, async (trx) => {
      const cart = await trx('carts').where({ storeId: candidate.storeId, id: candidate.cartId }).forUpdate().skipLocked().first('id');
      if (!cart) return;
      const session = await trx('checkoutSessions')
        .where({ storeId: candidate.storeId, id: candidate.id, status: 'pending' })
        .where('expiresAt', '<', trx.fn.now())
        .forUpdate()
        .first('id', 'storeId', 'discountId');
      if (!session) return;
      const variantIds = await releaseSession(trx, session);
      await trx('checkoutSessions').where({ storeId: session.storeId, id: session.id }).update({ status: 'expired', updatedAt: trx.fn.now() });
      released += 1;
      changed.set(session.storeId, [...(changed.get(session.storeId) ?? []), ...variantIds]);
    });
  }
  for (const [storeId, variantIds] of changed) await stockChanged(ctx, storeId, variantIds);
  return { released };
}
