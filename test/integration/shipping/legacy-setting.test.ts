import t from 'tap';
import * as shippingMigration from '../../../migrations/20261127030000_shipping_zones.js';
import { createDb } from '../../../src/db/knex.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { ADDRESS, SHIPPING_METHODS, openSession, sellable, setupShop, sf } from '../../helpers/checkout.js';

/**
 * The old flat `shippingMethods` store setting after issue #34: one zone per entry (source
 * store_setting) with one flat rate of the same id, unchanged for shoppers; PATCH /admin/store
 * still writes it, replacing exactly the zones it wrote.
 */

t.test('the old setting writes and reads zones; zones made through the zones API stay', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  const ids = await setupShop(app, owner);

  const zones = (await app.request({ url: '/admin/shipping-zones', ...admin(owner) })).body.data.zones;
  t.same(
    zones.map((z: any) => ({ name: z.name, countries: z.countries, source: z.source, rates: z.rates.map((r: any) => ({ id: r.id, type: r.type, price: r.price, freeOver: r.freeOver })) })),
    [
      { name: 'Standard', countries: [], source: 'store_setting', rates: [{ id: ids.standard, type: 'flat', price: 500, freeOver: 10_000 }] },
      { name: 'Express', countries: [], source: 'store_setting', rates: [{ id: ids.express, type: 'flat', price: 1500, freeOver: null }] },
      { name: 'EU Post', countries: ['DE', 'FR'], source: 'store_setting', rates: [{ id: ids.eu, type: 'flat', price: 900, freeOver: null }] }
    ],
    'one zone per entry, one flat rate with the same id'
  );
  const settings = (await app.request({ url: '/admin/store', ...admin(owner) })).body.data.store;
  t.same(settings.shippingMethods.map((m: any) => m.name), ['Standard', 'Express', 'EU Post'], 'the setting reads back from the zones');
  t.same((await app.request({ url: '/storefront/store', ...sf(owner) })).body.data.store.shippingCountries, ['DE', 'FR']);

  const own = await app.request({ method: 'POST', url: '/admin/shipping-zones', payload: { name: 'Canada', countries: ['CA'], rates: [{ id: 'canada-post', name: 'Canada Post', type: 'flat', price: 1100 }] }, ...admin(owner) });
  t.equal(own.status, 201);
  t.same((await app.request({ url: '/storefront/store', ...sf(owner) })).body.data.store.shippingCountries, ['CA', 'DE', 'FR'], 'the storefront sees the new zone at once');

  // Rewriting the setting (the settings screen sends what it read): its zones are replaced, the Canada zone stays.
  const kept = settings.shippingMethods.filter((m: any) => m.name !== 'Express').map((m: any) => (m.name === 'Standard' ? { ...m, price: 600 } : m));
  const patched = await app.request({ method: 'PATCH', url: '/admin/store', payload: { shippingMethods: kept }, ...admin(owner) });
  t.equal(patched.status, 200, patched.raw);
  t.same(patched.body.data.store.shippingMethods.map((m: any) => [m.id, m.price]), [[ids.standard, 600], [ids.eu, 900]]);
  const after = (await app.request({ url: '/admin/shipping-zones', ...admin(owner) })).body.data.zones;
  t.same(after.map((z: any) => z.name).sort(), ['Canada', 'EU Post', 'Standard']);

  // A shopper sees the change at once (the zones cache is dropped by the setting too).
  const product = await sellable(app, owner, 'Lamp', [{ price: 2000, stock: 10 }]);
  const cart = (await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId: product.variants[0]!.id, quantity: 1 }] }, ...sf(owner) })).body.data.cart;
  const offered = (await app.request({ url: `/storefront/carts/${cart.id}/shipping-methods?country=US`, ...sf(owner) })).body.data.shippingMethods;
  t.same(offered.map((m: any) => [m.id, m.price]), [[ids.standard, 600]], 'US: the standard method at its new price');

  // A rate id another zone holds cannot come in through the setting.
  const clash = await app.request({ method: 'PATCH', url: '/admin/store', payload: { shippingMethods: [{ id: '6a4f2c10-0000-4000-8000-000000000001', name: 'A', price: 1 }, ...kept] }, ...admin(owner) });
  t.equal(clash.status, 200, 'a new id is fine');
  await app.ctx.db('shippingRates').where({ storeId: owner.store.id, id: 'canada-post' }).update({ id: '6a4f2c10-0000-4000-8000-000000000002' });
  await app.ctx.cache.invalidate(`shipping:${owner.store.id}`);
  const taken = await app.request({ method: 'PATCH', url: '/admin/store', payload: { shippingMethods: [{ id: '6a4f2c10-0000-4000-8000-000000000002', name: 'B', price: 1 }] }, ...admin(owner) });
  t.equal(taken.status, 409, "an id of the zones API's rates is refused");

  // Editing a setting zone through the zones API hands it over: the setting no longer lists it.
  const current = (await app.request({ url: '/admin/shipping-zones', ...admin(owner) })).body.data.zones;
  const standard = current.find((z: any) => z.name === 'A');
  t.equal(standard.source, 'store_setting');
  const edited = await app.request({ method: 'PATCH', url: `/admin/shipping-zones/${standard.id}`, payload: { countries: ['US'] }, ...admin(owner) });
  t.equal(edited.body.data.zone.source, 'zones');
  const listed = (await app.request({ url: '/admin/store', ...admin(owner) })).body.data.store.shippingMethods;
  t.notOk(listed.some((m: any) => m.name === 'A'), 'the edited zone left the setting');
});

t.test('the migration turns each entry of the old setting into a zone; shoppers see no change', async (t) => {
  const app = await buildApp(t, { workers: false, env: { STOREFRONT_CACHE_TTL_MS: '0' } });
  const owner = await signupOwner(app);
  const ids = await setupShop(app, owner);
  const db = app.ctx.db;
  // The migration runs on a pool of its own, as `npm run migrate` would: the app's pool is the one
  // the statement check (test/setup/statement-log.ts) holds to naming store_id.
  const migrator = createDb(app.ctx.config.databaseUrl, { max: 1 });
  t.teardown(() => migrator.destroy());
  await shippingMigration.down(migrator);
  t.same((await db('stores').where({ id: owner.store.id }).first('shippingMethods')).shippingMethods.map((m: any) => m.name), SHIPPING_METHODS.map((m) => m.name), 'the old column still holds the setting');
  await shippingMigration.up(migrator);

  const zones = await db('shippingZones').where({ storeId: owner.store.id }).orderBy('position').select('name', 'countries', 'source');
  t.same(zones, [
    { name: 'Standard', countries: [], source: 'store_setting' },
    { name: 'Express', countries: [], source: 'store_setting' },
    { name: 'EU Post', countries: ['DE', 'FR'], source: 'store_setting' }
  ]);
  const rates = await db('shippingRates').where({ storeId: owner.store.id }).orderBy('price').select('id', 'type', 'price', 'freeOver');
  t.same(rates, [
    { id: ids.standard, type: 'flat', price: 500, freeOver: 10_000 },
    { id: ids.eu, type: 'flat', price: 900, freeOver: null },
    { id: ids.express, type: 'flat', price: 1500, freeOver: null }
  ]);

  const product = await sellable(app, owner, 'Vase', [{ price: 4000, stock: 10 }]);
  const items = [{ variantId: product.variants[0]!.id, quantity: 3 }];
  const { cartId, session } = await openSession(app, owner, items, { method: 'standard' });
  t.equal(session.status, 201, session.raw);
  t.equal(session.body.data.checkoutSession.amount, 12_000, 'free over 100.00, as before');
  const methods = (await app.request({ url: `/storefront/carts/${cartId}/shipping-methods`, ...sf(owner) })).body.data.shippingMethods;
  t.same(methods.map((m: any) => m.name), ['Standard', 'Express'], 'the cart is in the US now: the EU method is not offered');
  const eu = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }], { method: 'eu' }).catch((error: Error) => error);
  t.ok(eu instanceof Error || eu.session.status === 422, 'EU Post does not ship to the US address');
  const fr = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId: product.variants[0]!.id, quantity: 1 }] }, ...sf(owner) });
  const chosen = await app.request({ method: 'POST', url: `/storefront/carts/${fr.body.data.cart.id}/shipping-method`, payload: { shippingMethodId: ids.eu, country: 'FR' }, ...sf(owner) });
  t.match(chosen.body.data.cart, { shippingMethod: { id: ids.eu, name: 'EU Post', price: 900 }, total: 4900 });
  const session2 = await app.request({ method: 'POST', url: `/storefront/carts/${fr.body.data.cart.id}/checkout-session`, payload: { email: 'a@example.com', shippingAddress: { ...ADDRESS, country: 'FR', postalCode: '75001' } }, ...sf(owner) });
  t.equal(session2.body.data.checkoutSession.amount, 4900);
});
