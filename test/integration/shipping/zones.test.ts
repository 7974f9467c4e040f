import t from 'tap';
import { sealAudit } from '../../helpers/audit.js';
import { addMember, buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';

/** Issue #34 part 1: the admin zones API. Every answer is checked against the OpenAPI document by app.request. */

const US_ZONE = {
  name: 'United States',
  countries: ['us'],
  regions: ['US-CA', 'ny'],
  postcodes: ['9*', '10000..14999'],
  rates: [
    { id: 'us-ground', name: 'Ground', type: 'weight', bands: [{ upTo: 1000, price: 500 }, { upTo: 5000, price: 900 }, { upTo: null, price: 1500 }], freeOver: 5000, estimate: { minDays: 3, maxDays: 5 } },
    { name: 'Express', type: 'flat', price: 2500, estimate: { text: 'next business day' } },
    { name: 'Pick up in store', type: 'pickup' }
  ]
};

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('zones: create, read, list, update (rates matched by id), delete; audit', async (t) => {
  const owner = await signupOwner(app);

  const created = await app.request({ method: 'POST', url: '/admin/shipping-zones', payload: US_ZONE, ...admin(owner) });
  t.equal(created.status, 201, created.raw);
  const zone = created.body.data.zone;
  t.same(zone.countries, ['US'], 'countries upper case');
  t.same(zone.regions, ['US-CA', 'NY'], 'regions kept as given, upper case');
  t.same(zone.postcodes, ['9*', '10000..14999']);
  t.equal(zone.source, 'zones');
  t.equal(zone.rates.length, 3);
  t.match(zone.rates[0], { id: 'us-ground', type: 'weight', price: null, freeOver: 5000, estimate: { minDays: 3, maxDays: 5 } });
  t.match(zone.rates[1], { name: 'Express', type: 'flat', price: 2500, bands: null, estimate: { text: 'next business day' } });
  t.match(zone.rates[1].id, /^[0-9a-f-]{36}$/, 'a rate without id gets one');
  t.match(zone.rates[2], { type: 'pickup', price: 0 }, 'pickup defaults to free');

  const read = await app.request({ url: `/admin/shipping-zones/${zone.id}`, ...admin(owner) });
  t.equal(read.status, 200);
  t.same(read.body.data.zone, zone);

  const second = await app.request({ method: 'POST', url: '/admin/shipping-zones', payload: { name: 'Rest of world', countries: [], rates: [{ name: 'International', type: 'flat', price: 3000 }] }, ...admin(owner) });
  t.equal(second.status, 201);
  const list = await app.request({ url: '/admin/shipping-zones', ...admin(owner) });
  t.same(list.body.data.zones.map((z: any) => z.name), ['United States', 'Rest of world'], 'in creation order');

  const expressId = zone.rates[1].id;
  const updated = await app.request({
    method: 'PATCH',
    url: `/admin/shipping-zones/${zone.id}`,
    payload: { name: 'USA', rates: [{ id: expressId, name: 'Express', type: 'flat', price: 2700 }, { name: 'Economy', type: 'subtotal', bands: [{ upTo: 2000, price: 700 }, { upTo: null, price: 300 }] }] },
    ...admin(owner)
  });
  t.equal(updated.status, 200, updated.raw);
  t.equal(updated.body.data.zone.name, 'USA');
  t.same(updated.body.data.zone.regions, ['US-CA', 'NY'], 'absent fields stay');
  t.same(updated.body.data.zone.rates.map((r: any) => [r.id === expressId, r.name, r.price]), [[true, 'Express', 2700], [false, 'Economy', null]], 'the kept rate keeps its id; the others are gone');

  await sealAudit(app, owner.store.id);
  const audit = await app.ctx.db('auditLog').where({ storeId: owner.store.id }).whereLike('action', 'shipping_zone.%').orderBy('createdAt').select('action');
  t.same(audit.map((a: any) => a.action), ['shipping_zone.created', 'shipping_zone.created', 'shipping_zone.updated']);

  const deleted = await app.request({ method: 'DELETE', url: `/admin/shipping-zones/${zone.id}`, ...admin(owner) });
  t.equal(deleted.status, 200);
  t.same(deleted.body.data, { deleted: true, id: zone.id });
  t.equal((await app.request({ url: `/admin/shipping-zones/${zone.id}`, ...admin(owner) })).status, 404);
  t.equal(await app.ctx.db('shippingRates').where({ storeId: owner.store.id, zoneId: zone.id }).count('* as n').first().then((r: any) => Number(r.n)), 0, 'its rates went with it');
});

t.test('zones: 422 with details on bad input; 409 on a rate id another zone holds', async (t) => {
  const owner = await signupOwner(app);
  const post = (payload: unknown) => app.request({ method: 'POST', url: '/admin/shipping-zones', payload, ...admin(owner) });
  const flat = { name: 'Flat', type: 'flat', price: 500 };
  const cases: Array<[string, unknown, string]> = [
    ['no name', { countries: ['US'], rates: [flat] }, 'name'],
    ['bad country', { name: 'X', countries: ['USA'], rates: [flat] }, 'countries.0'],
    ['bad region', { name: 'X', countries: ['US'], regions: ['California!'], rates: [flat] }, 'regions.0'],
    ['region of another country', { name: 'X', countries: ['US'], regions: ['CA-ON'], rates: [flat] }, 'regions.0'],
    ['bad postcode range', { name: 'X', countries: ['US'], postcodes: ['9000..800'], rates: [flat] }, 'postcodes.0'],
    ['unknown type', { name: 'X', countries: ['US'], rates: [{ name: 'A', type: 'drone', price: 1 }] }, 'rates.0.type'],
    ['flat without price', { name: 'X', countries: ['US'], rates: [{ name: 'A', type: 'flat' }] }, 'rates.0.price'],
    ['weight without bands', { name: 'X', countries: ['US'], rates: [{ name: 'A', type: 'weight' }] }, 'rates.0.bands'],
    ['weight with a price', { name: 'X', countries: ['US'], rates: [{ name: 'A', type: 'weight', price: 5, bands: [{ upTo: null, price: 1 }] }] }, 'rates.0.price'],
    ['bands not rising', { name: 'X', countries: ['US'], rates: [{ name: 'A', type: 'weight', bands: [{ upTo: 500, price: 1 }, { upTo: 500, price: 2 }, { upTo: null, price: 3 }] }] }, 'rates.0.bands.1.upTo'],
    ['open band not last', { name: 'X', countries: ['US'], rates: [{ name: 'A', type: 'subtotal', bands: [{ upTo: null, price: 1 }, { upTo: 500, price: 2 }] }] }, 'rates.0.bands.0.upTo'],
    ['negative price', { name: 'X', countries: ['US'], rates: [{ name: 'A', type: 'flat', price: -1 }] }, 'rates.0.price'],
    ['estimate backwards', { name: 'X', countries: ['US'], rates: [{ ...flat, estimate: { minDays: 5, maxDays: 2 } }] }, 'rates.0.estimate.maxDays'],
    ['duplicate rate ids', { name: 'X', countries: ['US'], rates: [{ ...flat, id: 'a' }, { ...flat, id: 'a' }] }, 'rates.1.id']
  ];
  for (const [label, payload, path] of cases) {
    const response = await post(payload);
    t.equal(response.status, 422, `${label}: 422`);
    t.ok(response.body.error.details?.some((d: any) => d.path === path), `${label}: details name ${path} (${JSON.stringify(response.body.error.details)})`);
  }
  t.equal((await app.request({ method: 'PATCH', url: `/admin/shipping-zones/${'0'.repeat(8)}-0000-4000-8000-000000000000`, payload: {}, ...admin(owner) })).status, 422, 'an empty update');

  const first = await post({ name: 'A', countries: ['US'], rates: [{ ...flat, id: 'standard' }] });
  t.equal(first.status, 201);
  const taken = await post({ name: 'B', countries: ['CA'], rates: [{ ...flat, id: 'standard' }] });
  t.equal(taken.status, 409, 'a rate id is unique in the store');
  t.equal(taken.body.error.details[0].path, 'rates.0.id');
  const zones = await app.request({ url: '/admin/shipping-zones', ...admin(owner) });
  t.equal(zones.body.data.zones.length, 1, 'nothing of the refused zone stayed');
});

t.test("zones: another store's zone is 404; staff read, only owners and admins write", async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const staff = await addMember(app, owner.store.id, 'staff');
  const zone = (await app.request({ method: 'POST', url: '/admin/shipping-zones', payload: US_ZONE, ...admin(owner) })).body.data.zone;

  for (const [method, payload] of [['GET', undefined], ['PATCH', { name: 'Mine now' }], ['DELETE', undefined]] as const) {
    const response = await app.request({ method, url: `/admin/shipping-zones/${zone.id}`, payload, ...admin(other) });
    t.equal(response.status, 404, `${method} from another store: 404`);
  }
  t.same((await app.request({ url: '/admin/shipping-zones', ...admin(other) })).body.data.zones, [], "another store lists none of this store's zones");
  const rateTaken = await app.request({ method: 'POST', url: '/admin/shipping-zones', payload: { name: 'Copy', countries: [], rates: [{ id: 'us-ground', name: 'G', type: 'flat', price: 1 }] }, ...admin(other) });
  t.equal(rateTaken.status, 201, 'rate ids are unique per store, not across stores');

  const asStaff = { token: staff.accessToken, storeId: owner.store.id };
  t.equal((await app.request({ url: '/admin/shipping-zones', ...asStaff })).status, 200, 'staff read');
  t.equal((await app.request({ url: `/admin/shipping-zones/${zone.id}`, ...asStaff })).status, 200);
  t.equal((await app.request({ method: 'PATCH', url: `/admin/shipping-zones/${zone.id}`, payload: { name: 'No' }, ...asStaff })).status, 403, 'staff do not write');

  const key = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: 'fulfilment', scopes: ['read_shipping'] }, ...admin(owner) });
  t.equal(key.status, 201);
  const bearer = { headers: { authorization: `Bearer ${key.body.data.secret}` } };
  t.equal((await app.request({ url: '/admin/shipping-zones', ...bearer })).status, 200, 'read_shipping reads');
  const refused = await app.request({ method: 'POST', url: '/admin/shipping-zones', payload: US_ZONE, ...bearer });
  t.equal(refused.status, 403);
  t.equal(refused.body.error.code, 'insufficient_scope', 'writing needs write_shipping');
});
