import type { Owner, TestApp } from './app.js';
import { admin, createProduct } from './catalog.js';

export const ADDRESS = { firstName: 'Sam', lastName: 'Shopper', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };

export const SHIPPING_METHODS = [
  { name: 'Standard', price: 500, freeOverAmount: 10_000 },
  { name: 'Express', price: 1500 },
  { name: 'EU Post', price: 900, countries: ['DE', 'FR'] }
];

export interface ShopMethods {
  standard: string;
  express: string;
  eu: string;
}

const methodIds = new Map<string, ShopMethods>();
/** The generated shipping method ids of a store set up with `setupShop`. */
export const methodsOf = (owner: Owner) => methodIds.get(owner.store.id)!;

/** A store that ships with the methods above (ids: `methodsOf(owner)`); it takes manual payments, as every new store does. */
export async function setupShop(app: TestApp, owner: Owner, settings: Record<string, unknown> = {}): Promise<ShopMethods> {
  const response = await app.request({
    method: 'PATCH',
    url: '/admin/store',
    payload: { shippingMethods: SHIPPING_METHODS, ...settings },
    ...admin(owner)
  });
  if (response.status !== 200) throw new Error(`store setup failed: ${response.status} ${response.raw}`);
  const store = await app.ctx.db('stores').where({ id: owner.store.id }).first('shippingMethods');
  const byName = (name: string) => store.shippingMethods.find((m: { name: string }) => m.name === name)?.id as string;
  const ids = { standard: byName('Standard'), express: byName('Express'), eu: byName('EU Post') };
  methodIds.set(owner.store.id, ids);
  return ids;
}

/** An active product with one variant per entry; returns the product and its variants. */
export async function sellable(app: TestApp, owner: Owner, title: string, variants: Array<{ price: number; stock: number; sku?: string; policy?: 'deny' | 'continue' }>) {
  const product = await createProduct(app, owner, {
    title,
    status: 'active',
    options: variants.length > 1 ? [{ name: 'Size', values: variants.map((_, i) => `S${i}`) }] : [],
    variants: variants.map((v, i) => ({
      title: variants.length > 1 ? `S${i}` : 'Default',
      sku: v.sku ?? `${title.replace(/\W/g, '').toUpperCase()}-${i}`,
      price: v.price,
      inventoryQuantity: v.stock,
      inventoryPolicy: v.policy ?? 'deny',
      ...(variants.length > 1 ? { optionValues: { Size: `S${i}` } } : {})
    }))
  });
  return product as { id: string; slug: string; variants: Array<{ id: string; price: number; inventoryQuantity: number }> };
}

export const sf = (owner: Owner) => ({ storefrontToken: owner.storefrontToken });

/** cart → items → shipping method → checkout session; returns the session and cart. */
export async function openSession(app: TestApp, owner: Owner, items: Array<{ variantId: string; quantity: number }>, options: { email?: string; code?: string; method?: keyof ShopMethods } = {}) {
  const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items }, ...sf(owner) });
  if (cart.status !== 201) throw new Error(`cart failed: ${cart.status} ${cart.raw}`);
  const cartId = cart.body.data.cart.id as string;
  if (options.code) {
    const applied = await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/discount`, payload: { code: options.code }, ...sf(owner) });
    if (applied.status !== 200) throw new Error(`discount failed: ${applied.status} ${applied.raw}`);
  }
  const shipping = await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload: { shippingMethodId: methodsOf(owner)[options.method ?? 'express'] }, ...sf(owner) });
  if (shipping.status !== 200) throw new Error(`shipping failed: ${shipping.status} ${shipping.raw}`);
  const session = await app.request({
    method: 'POST',
    url: `/storefront/carts/${cartId}/checkout-session`,
    payload: { email: options.email ?? 'sam@example.com', shippingAddress: ADDRESS },
    ...sf(owner)
  });
  return { cartId, session };
}

export async function confirm(app: TestApp, owner: Owner, sessionId: string, headers: Record<string, string> = {}) {
  return app.request({ method: 'POST', url: `/storefront/checkout-sessions/${sessionId}/confirm`, ...sf(owner), headers });
}
