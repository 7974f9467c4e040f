import t from 'tap';
import { addMember, buildApp, signupOwner, type TestApp } from '../../helpers/app.js';

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('discounts: create, get, list, replace with every rule', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const admin = { token: owner.accessToken, storeId: owner.store.id };

  const created = await app.request({
    method: 'POST',
    url: '/admin/discounts',
    payload: { code: ' SPRING10 ', type: 'percentage', value: 10, usageLimit: 100, minimumOrderAmount: 2000, startsAt: '2026-01-01T00:00:00Z', endsAt: '2026-12-31T00:00:00Z' },
    ...admin
  });
  t.equal(created.status, 201);
  const discount = created.body.data.discount;
  t.match(discount, { code: 'SPRING10', type: 'percentage', value: 10, isActive: true, usageLimit: 100, usageCount: 0, minimumOrderAmount: 2000 });
  t.equal(discount.startsAt, '2026-01-01T00:00:00.000Z');

  const duplicate = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: 'spring10', type: 'fixed_amount', value: 500 }, ...admin });
  t.equal(duplicate.status, 409);
  t.equal(duplicate.body.error.code, 'code_taken');
  const elsewhere = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: 'SPRING10', type: 'percentage', value: 5 }, token: other.accessToken, storeId: other.store.id });
  t.equal(elsewhere.status, 201, 'codes are unique per store only');

  for (const [payload, path] of [
    [{ code: 'A', type: 'percentage', value: 0 }, 'value'],
    [{ code: 'A', type: 'percentage', value: 101 }, 'value'],
    [{ code: 'A', type: 'percentage' }, 'value'],
    [{ code: 'A', type: 'fixed_amount', value: 9.5 }, 'value'],
    [{ code: 'A', type: 'bogus', value: 1 }, 'type'],
    [{ type: 'percentage', value: 5 }, 'code'],
    [{ code: 'A', type: 'percentage', value: 5, startsAt: '2026-05-01T00:00:00Z', endsAt: '2026-05-01T00:00:00Z' }, 'endsAt'],
    [{ code: 'A', type: 'percentage', value: 5, usageLimit: 0 }, 'usageLimit'],
    [{ code: 'A', type: 'percentage', value: 5, minimumOrderAmount: -1 }, 'minimumOrderAmount'],
    [{ code: 'has space', type: 'percentage', value: 5 }, 'code']
  ] as const) {
    const response = await app.request({ method: 'POST', url: '/admin/discounts', payload, ...admin });
    t.equal(response.status, 422, `422 for ${JSON.stringify(payload)}`);
    t.ok(response.body.error.details.some((d: { path: string }) => d.path === path), `detail names ${path}`);
  }
  const freeShipping = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: 'SHIPFREE', type: 'free_shipping' }, ...admin });
  t.equal(freeShipping.status, 201);
  t.equal(freeShipping.body.data.discount.value, null);
  const shipValue = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: 'SHIPFREE2', type: 'free_shipping', value: 500 }, ...admin });
  t.equal(shipValue.status, 201, 'value is ignored for free_shipping, not validated');
  t.equal(shipValue.body.data.discount.value, null);

  const got = await app.request({ url: `/admin/discounts/${discount.id}`, ...admin });
  t.equal(got.status, 200);
  t.equal(got.body.data.discount.usageCount, 0);
  const foreign = await app.request({ url: `/admin/discounts/${discount.id}`, token: other.accessToken, storeId: other.store.id });
  t.equal(foreign.status, 404, "A's discount under B is not found");
  const foreignPut = await app.request({ method: 'PUT', url: `/admin/discounts/${discount.id}`, payload: { code: 'X', type: 'percentage', value: 1 }, token: other.accessToken, storeId: other.store.id });
  t.equal(foreignPut.status, 404);

  const replaced = await app.request({ method: 'PUT', url: `/admin/discounts/${discount.id}`, payload: { code: 'SPRING15', type: 'fixed_amount', value: 1500 }, ...admin });
  t.equal(replaced.status, 200);
  t.match(replaced.body.data.discount, { id: discount.id, code: 'SPRING15', type: 'fixed_amount', value: 1500, usageLimit: null, startsAt: null, endsAt: null, minimumOrderAmount: null, isActive: true });

  const clash = await app.request({ method: 'PUT', url: `/admin/discounts/${discount.id}`, payload: { code: 'shipfree', type: 'percentage', value: 5 }, ...admin });
  t.equal(clash.status, 409);
  t.equal(clash.body.error.code, 'code_taken');

  const badDates = await app.request({
    method: 'PUT',
    url: `/admin/discounts/${discount.id}`,
    payload: { code: 'SPRING15', type: 'percentage', value: 5, startsAt: '2026-06-01T00:00:00Z', endsAt: '2026-05-01T00:00:00Z' },
    ...admin
  });
  t.equal(badDates.status, 422);

  await app.ctx.db('discounts').where({ id: discount.id }).update({ usageCount: 7 });
  const belowUsage = await app.request({ method: 'PUT', url: `/admin/discounts/${discount.id}`, payload: { code: 'SPRING15', type: 'percentage', value: 5, usageLimit: 6 }, ...admin });
  t.equal(belowUsage.status, 422);
  t.equal(belowUsage.body.error.details[0].path, 'usageLimit');
  const atUsage = await app.request({ method: 'PUT', url: `/admin/discounts/${discount.id}`, payload: { code: 'SPRING15', type: 'percentage', value: 5, usageLimit: 7, isActive: false }, ...admin });
  t.equal(atUsage.status, 200);
  t.match(atUsage.body.data.discount, { usageLimit: 7, usageCount: 7, isActive: false });

  const missing = await app.request({ method: 'PUT', url: '/admin/discounts/00000000-0000-4000-8000-000000000000', payload: { code: 'Z', type: 'percentage', value: 5 }, ...admin });
  t.equal(missing.status, 404);

  const staff = await addMember(app, owner.store.id, 'staff');
  t.equal((await app.request({ url: '/admin/discounts', token: staff.accessToken, storeId: owner.store.id })).status, 403);
});

t.test('discount list: filters and keyset pagination', async (t) => {
  const owner = await signupOwner(app);
  const admin = { token: owner.accessToken, storeId: owner.store.id };
  for (let i = 0; i < 25; i++) {
    const response = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: `CODE${i}`, type: 'fixed_amount', value: 100 + i, isActive: i % 5 !== 0 }, ...admin });
    t.equal(response.status, 201);
  }
  const seen = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    const url: string = `/admin/discounts?limit=10${cursor ? `&cursor=${cursor}` : ''}`;
    const page = await app.request({ url, ...admin });
    t.equal(page.status, 200);
    t.equal(page.body.meta.pagination.limit, 10);
    for (const d of page.body.data.discounts) seen.add(d.id);
    cursor = page.body.meta.pagination.nextCursor;
    pages += 1;
  } while (cursor);
  t.equal(pages, 3);
  t.equal(seen.size, 25, 'every discount exactly once across pages');

  const inactive = await app.request({ url: '/admin/discounts?isActive=false', ...admin });
  t.equal(inactive.body.data.discounts.length, 5);
  const search = await app.request({ url: '/admin/discounts?q=code1', ...admin });
  t.equal(search.body.data.discounts.length, 11, 'CODE1 and CODE10..19');
  const badLimit = await app.request({ url: '/admin/discounts?limit=101', ...admin });
  t.equal(badLimit.status, 422);
  const badCursor = await app.request({ url: '/admin/discounts?cursor=garbage', ...admin });
  t.equal(badCursor.status, 422);
});
