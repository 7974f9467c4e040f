import t from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';
import { ADDRESS, confirm, sf } from '../../helpers/checkout.js';

/**
 * Issue #34 part 1, the shopper's side: a US store that ships by weight (free over $50), a
 * California courier by region and postcode, store pickup, a digital good; the rates that apply,
 * their prices, the checkout's totals, and a chosen rate dropped (with its reason) after a change.
 */

const NY = { ...ADDRESS, region: 'NY', postalCode: '10001', country: 'US' };
const LA = { ...ADDRESS, region: 'US-CA', postalCode: '90012', country: 'US' };

async function usStore(app: TestApp) {
  const owner = await signupOwner(app);
  const zone = async (payload: unknown) => {
    const response = await app.request({ method: 'POST', url: '/admin/shipping-zones', payload, ...admin(owner) });
    if (response.status !== 201) throw new Error(`zone: ${response.status} ${response.raw}`);
    return response.body.data.zone;
  };
  const us = await zone({
    name: 'United States',
    countries: ['US'],
    rates: [
      { id: 'ground', name: 'Ground', type: 'weight', bands: [{ upTo: 1000, price: 500 }, { upTo: 5000, price: 900 }, { upTo: null, price: 1500 }], freeOver: 5000, estimate: { minDays: 3, maxDays: 6 } },
      { id: 'express', name: 'Express', type: 'flat', price: 2500 },
      { id: 'letter', name: 'Letter', type: 'weight', bands: [{ upTo: 500, price: 200 }] }
    ]
  });
  await zone({ name: 'LA courier', countries: ['US'], regions: ['CA'], postcodes: ['900*', '90100..91699'], rates: [{ id: 'la-courier', name: 'LA courier', type: 'flat', price: 800, estimate: { text: 'same day' } }] });
  await zone({ name: 'Pickup', countries: [], rates: [{ id: 'pickup', name: 'Store pickup', type: 'pickup' }] });
  const product = async (title: string, variant: Record<string, unknown>) =>
    (await createProduct(app, owner, { title, status: 'active', variants: [{ sku: title.toUpperCase(), inventoryQuantity: 100, ...variant }] })).variants[0].id as string;
  const variants = {
    mug: await product('Mug', { price: 1200, weightGrams: 400 }),
    anvil: await product('Anvil', { price: 3000, weight: 6, weightUnit: 'kg' }),
    ebook: await product('Ebook', { price: 900, requiresShipping: false })
  };
  return { owner, us, variants };
}

const cartOf = async (app: TestApp, owner: Owner, items: Array<{ variantId: string; quantity: number }>) => {
  const response = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items }, ...sf(owner) });
  if (response.status !== 201) throw new Error(`cart: ${response.status} ${response.raw}`);
  return response.body.data.cart.id as string;
};
const methods = async (app: TestApp, owner: Owner, cartId: string, query = '') =>
  (await app.request({ url: `/storefront/carts/${cartId}/shipping-methods${query}`, ...sf(owner) })).body.data;
const priced = (list: { shippingMethods: Array<{ id: string; price: number }> }) => Object.fromEntries(list.shippingMethods.map((m) => [m.id, m.price]));

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('rates by destination: country, region (CA or US-CA), postcode patterns; pickup anywhere; weight bands and free over $50', async (t) => {
  const { owner, variants } = await usStore(app);
  const anvil = await app.request({ url: `/admin/products`, ...admin(owner) });
  t.ok(anvil.body.data.products.some((p: any) => p.variants[0].weightGrams === 6000), 'weight 6 kg stored as 6000 g');

  const mug = await cartOf(app, owner, [{ variantId: variants.mug, quantity: 1 }]);
  t.same(priced(await methods(app, owner, mug)), { ground: 500, express: 2500, letter: 200, 'la-courier': 800, pickup: 0 }, 'no destination yet: every rate, priced for 400 g');
  t.same(priced(await methods(app, owner, mug, '?country=US&region=NY&postalCode=10001')), { ground: 500, express: 2500, letter: 200, pickup: 0 }, 'New York: no LA courier');
  t.same(Object.keys(priced(await methods(app, owner, mug, '?country=US&region=CA&postalCode=90012'))), ['ground', 'express', 'letter', 'la-courier', 'pickup'], 'region CA and a 900* postcode');
  t.ok(priced(await methods(app, owner, mug, '?country=US&region=US-CA&postalCode=91505'))['la-courier'], 'US-CA alike; 91505 is in 90100..91699');
  t.notOk(priced(await methods(app, owner, mug, '?country=US&region=US-CA&postalCode=94105'))['la-courier'], 'San Francisco 94105 matches no pattern');
  t.same(priced(await methods(app, owner, mug, '?country=DE')), { pickup: 0 }, 'Germany: pickup only (no zone ships there)');
  const listed = (await methods(app, owner, mug, '?country=US')).shippingMethods[0];
  t.match(listed, { id: 'ground', name: 'Ground', type: 'weight', price: 500, estimate: { minDays: 3, maxDays: 6 } });
  t.equal((await methods(app, owner, mug)).shippingRequired, true);

  const three = await cartOf(app, owner, [{ variantId: variants.mug, quantity: 3 }]);
  t.equal(priced(await methods(app, owner, three, '?country=US')).ground, 900, '1200 g: the second band');
  t.notOk('letter' in priced(await methods(app, owner, three, '?country=US')), 'over the letter rate\'s 500 g: not offered');
  const heavy = await cartOf(app, owner, [{ variantId: variants.anvil, quantity: 1 }]);
  t.equal(priced(await methods(app, owner, heavy, '?country=US')).ground, 1500, '6000 g: the open band');
  const five = await cartOf(app, owner, [{ variantId: variants.mug, quantity: 5 }]);
  t.equal(priced(await methods(app, owner, five, '?country=US')).ground, 0, '$60.00 of goods: free over $50');
  const mixed = await cartOf(app, owner, [{ variantId: variants.mug, quantity: 1 }, { variantId: variants.ebook, quantity: 3 }]);
  t.equal(priced(await methods(app, owner, mixed, '?country=US')).ground, 500, 'the ebook weighs nothing toward shipping, but counts toward the subtotal');
});

t.test('checkout: totals from the chosen rate; free over $50; pickup without a matching address; a cart that never ships needs no rate', async (t) => {
  const { owner, variants } = await usStore(app);
  const checkout = async (cartId: string, address: Record<string, unknown>) =>
    app.request({ method: 'POST', url: `/storefront/carts/${cartId}/checkout-session`, payload: { email: 'sam@example.com', shippingAddress: address }, ...sf(owner) });
  const choose = (cartId: string, payload: Record<string, unknown>) => app.request({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload, ...sf(owner) });

  const three = await cartOf(app, owner, [{ variantId: variants.mug, quantity: 3 }]);
  const chosen = await choose(three, { shippingMethodId: 'ground', country: 'US', region: 'NY', postalCode: '10001' });
  t.equal(chosen.status, 200, chosen.raw);
  t.match(chosen.body.data.cart, { shippingMethod: { id: 'ground', name: 'Ground', price: 900 }, shippingTotal: 900, subtotal: 3600, total: 4500, shippingDestination: { country: 'US', region: 'NY', postalCode: '10001' } });
  const session = await checkout(three, NY);
  t.equal(session.status, 201, session.raw);
  t.equal(session.body.data.checkoutSession.amount, 4500, '$36.00 + $9.00 ground');
  const order = await confirm(app, owner, session.body.data.checkoutSession.id);
  t.equal(order.status, 200, order.raw);
  t.match(order.body.data.order, { subtotal: 3600, shippingTotal: 900, total: 4500, shippingMethod: { id: 'ground', price: 900 } });

  const five = await cartOf(app, owner, [{ variantId: variants.mug, quantity: 5 }]);
  t.equal((await choose(five, { shippingMethodId: 'ground' })).body.data.cart.shippingTotal, 0);
  const free = await checkout(five, NY);
  t.equal(free.body.data.checkoutSession.amount, 6000, 'free shipping over $50');

  const pickup = await cartOf(app, owner, [{ variantId: variants.anvil, quantity: 1 }]);
  const picked = await choose(pickup, { shippingMethodId: 'pickup' });
  t.match(picked.body.data.cart, { shippingMethod: { id: 'pickup', price: 0 }, total: 3000 });
  const abroad = await checkout(pickup, { ...ADDRESS, country: 'DE', postalCode: '10115' });
  t.equal(abroad.status, 201, 'pickup asks nothing of the address');
  t.equal(abroad.body.data.checkoutSession.amount, 3000);

  const ebook = await cartOf(app, owner, [{ variantId: variants.ebook, quantity: 2 }]);
  t.same(await methods(app, owner, ebook), { shippingMethods: [], shippingRequired: false }, 'nothing ships: no methods');
  const digital = await checkout(ebook, NY);
  t.equal(digital.status, 201, `no method needed: ${digital.raw}`);
  t.equal(digital.body.data.checkoutSession.amount, 1800);
  t.equal(digital.body.data.cart.shippingRequired, false);

  const courier = await cartOf(app, owner, [{ variantId: variants.mug, quantity: 1 }]);
  t.equal((await choose(courier, { shippingMethodId: 'la-courier' })).status, 200, 'destination unknown: the courier may still apply');
  const wrong = await checkout(courier, NY);
  t.equal(wrong.status, 422, 'but not to New York');
  t.equal(wrong.body.error.details[0].path, 'shippingAddress.region');
  t.match(wrong.body.error.details[0].message, /US-NY/);
  const refusedChoice = await choose(courier, { shippingMethodId: 'la-courier', country: 'US', region: 'NY' });
  t.equal(refusedChoice.status, 422, 'choosing it for New York is refused');
  t.equal(refusedChoice.body.error.details[0].path, 'region');
  t.equal((await choose(courier, { shippingMethodId: 'nope' })).status, 422, 'an unknown method');
});

t.test('a chosen rate that stops applying after a cart change is dropped, with the reason on the cart', async (t) => {
  const { owner, variants } = await usStore(app);
  const choose = (cartId: string, payload: Record<string, unknown>) => app.request({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload, ...sf(owner) });
  const getCart = async (cartId: string) => (await app.request({ url: `/storefront/carts/${cartId}`, ...sf(owner) })).body.data.cart;

  // The destination changes.
  const moved = await cartOf(app, owner, [{ variantId: variants.mug, quantity: 1 }]);
  t.equal((await choose(moved, { shippingMethodId: 'la-courier', country: 'US', region: 'CA', postalCode: '90012' })).body.data.cart.shippingTotal, 800);
  const toNy = await app.request({ method: 'PUT', url: `/storefront/carts/${moved}/shipping-address`, payload: { country: 'US', region: 'NY', postalCode: '10001' }, ...sf(owner) });
  t.equal(toNy.status, 200, toNy.raw);
  t.match(toNy.body.data.cart, { shippingMethod: null, shippingTotal: 0, total: 1200, shippingMethodDropped: { id: 'la-courier', reason: 'does not ship to US-NY' } });
  t.match(await getCart(moved), { shippingMethod: null, shippingMethodDropped: { id: 'la-courier' } }, 'kept on the cart');
  const noMethod = await app.request({ method: 'POST', url: `/storefront/carts/${moved}/checkout-session`, payload: { email: 'sam@example.com', shippingAddress: NY }, ...sf(owner) });
  t.equal(noMethod.status, 422);
  t.match(noMethod.body.error.details[0], { path: 'shippingMethod', message: /choose a shipping method first/ });
  const back = await app.request({ method: 'PUT', url: `/storefront/carts/${moved}/shipping-address`, payload: { country: 'US', region: 'CA', postalCode: '90012' }, ...sf(owner) });
  t.equal(back.body.data.cart.shippingMethod, null, 'a dropped rate does not come back by itself');
  const again = await choose(moved, { shippingMethodId: 'ground' });
  t.match(again.body.data.cart, { shippingMethod: { id: 'ground' }, shippingMethodDropped: null }, 'choosing clears the notice');

  // The items change: over the letter rate's 500 g (the one-statement add path).
  const letter = await cartOf(app, owner, [{ variantId: variants.mug, quantity: 1 }]);
  t.equal((await choose(letter, { shippingMethodId: 'letter', country: 'US' })).body.data.cart.shippingTotal, 200);
  const added = await app.request({ method: 'POST', url: `/storefront/carts/${letter}/items`, payload: { variantId: variants.mug, quantity: 1 }, ...sf(owner) });
  t.match(added.body.data.cart, { shippingMethod: null, shippingMethodDropped: { id: 'letter', reason: "the cart weighs 800 g, over this method's 500 g" } });
  t.equal((await app.ctx.db('carts').where({ storeId: owner.store.id, id: letter }).first('shippingMethodId')).shippingMethodId, null, 'dropped from the cart row');

  // Only what never ships is left (the locked change path).
  const mixed = await cartOf(app, owner, [{ variantId: variants.mug, quantity: 1 }, { variantId: variants.ebook, quantity: 1 }]);
  const cart = (await choose(mixed, { shippingMethodId: 'express' })).body.data.cart;
  const mugLine = cart.items.find((item: any) => item.variantId === variants.mug);
  const removed = await app.request({ method: 'DELETE', url: `/storefront/carts/${mixed}/items/${mugLine.id}`, ...sf(owner) });
  t.match(removed.body.data.cart, { shippingMethod: null, shippingRequired: false, shippingMethodDropped: { id: 'express', reason: 'nothing in the cart needs shipping' }, total: 900 });

  // The store removes the rate: the cart shows it gone on its next read.
  const orphan = await cartOf(app, owner, [{ variantId: variants.mug, quantity: 1 }]);
  await choose(orphan, { shippingMethodId: 'la-courier', country: 'US', region: 'CA', postalCode: '90012' });
  const zones = (await app.request({ url: '/admin/shipping-zones', ...admin(owner) })).body.data.zones;
  const la = zones.find((z: any) => z.name === 'LA courier');
  t.equal((await app.request({ method: 'DELETE', url: `/admin/shipping-zones/${la.id}`, ...admin(owner) })).status, 200);
  t.match(await getCart(orphan), { shippingMethod: null, shippingTotal: 0, shippingMethodDropped: { id: 'la-courier', reason: 'this shipping method is no longer offered' } });
});
