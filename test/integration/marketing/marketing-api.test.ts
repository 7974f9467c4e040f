import t from 'tap';
import { buildApp, signupOwner, addMember, type TestApp } from '../../helpers/app.js';
import { seedCustomers } from '../../helpers/marketing.js';

/**
 * One app for the file (issue #32: each app costs a cloned database and a server). Each test signs up
 * its own store, so none sees another's data; a test that changes the app itself (a route added, a
 * connection cut, other settings or workers) or counts what the whole app holds builds its own.
 */
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('templates: CRUD, Liquid syntax checked on save (422 naming the line), preview with sample data', async (t) => {
  const owner = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };

  const created = await app.request({
    method: 'POST',
    url: '/admin/marketing/templates',
    ...as,
    payload: { key: 'spring_sale', name: 'Spring sale', subject: 'Hi {{ customer.firstName }}', html: '<p>{{ discountCode }}</p>', text: 'Code {{ discountCode }}' }
  });
  t.equal(created.status, 201, created.raw);
  const template = created.body.data.template;
  t.match(template, { key: 'spring_sale', name: 'Spring sale', subject: 'Hi {{ customer.firstName }}', html: '<p>{{ discountCode }}</p>', text: 'Code {{ discountCode }}' });
  t.ok(template.id);

  const broken = await app.request({
    method: 'POST',
    url: '/admin/marketing/templates',
    ...as,
    payload: { name: 'Broken', subject: 'ok', html: '<p>one</p>\n<p>two</p>\n{% if customer %}never closed' }
  });
  t.equal(broken.status, 422);
  t.equal(broken.body.error.code, 'validation_failed');
  t.equal(broken.body.error.details[0].path, 'html');
  t.match(broken.body.error.details[0].message, /line 3/);
  const badFilter = await app.request({ method: 'POST', url: '/admin/marketing/templates', ...as, payload: { name: 'B', subject: '{{ x | nope }}', text: 'x' } });
  t.equal(badFilter.status, 422);
  t.equal(badFilter.body.error.details[0].path, 'subject');

  t.equal((await app.request({ method: 'POST', url: '/admin/marketing/templates', ...as, payload: { name: 'X', subject: 's', text: 't', extra: 1 } })).status, 422);
  const duplicate = await app.request({ method: 'POST', url: '/admin/marketing/templates', ...as, payload: { key: 'spring_sale', name: 'Again', subject: 's', text: 't' } });
  t.equal(duplicate.status, 409);
  const keyless = await app.request({ method: 'POST', url: '/admin/marketing/templates', ...as, payload: { name: 'Spring sale', subject: 's', text: 't' } });
  t.equal(keyless.status, 201);
  t.match(keyless.body.data.template.key, /^spring_sale_[0-9a-f]{6}$/, 'a taken name-derived key gets a suffix');

  const listed = await app.request({ url: '/admin/marketing/templates?limit=1', ...as });
  t.equal(listed.status, 200);
  t.equal(listed.body.data.templates.length, 1);
  t.ok(listed.body.meta.pagination.nextCursor);
  const page2 = await app.request({ url: `/admin/marketing/templates?limit=1&cursor=${listed.body.meta.pagination.nextCursor}`, ...as });
  t.equal(page2.body.data.templates.length, 1);
  t.not(page2.body.data.templates[0].id, listed.body.data.templates[0].id);

  const replaced = await app.request({
    method: 'PUT',
    url: `/admin/marketing/templates/${template.id}`,
    ...as,
    payload: { name: 'Spring sale 2', subject: 'Hello {{ customer.firstName }} from {{ store.name }}', html: '<p>Use {{ discountCode }}</p>', text: 'Use {{ discountCode }}' }
  });
  t.equal(replaced.status, 200);
  t.equal(replaced.body.data.template.key, 'spring_sale', 'an absent key keeps the current one');
  const brokenPut = await app.request({ method: 'PUT', url: `/admin/marketing/templates/${template.id}`, ...as, payload: { name: 'x', subject: '{{ oops', text: 'x' } });
  t.equal(brokenPut.status, 422);
  t.match(brokenPut.body.error.details[0].message, /line 1/);

  const preview = await app.request({ method: 'POST', url: `/admin/marketing/templates/${template.id}/preview`, ...as });
  t.equal(preview.status, 200, preview.raw);
  t.equal(preview.body.data.preview.subject, `Hello Jane from ${owner.store.name}`);
  t.equal(preview.body.data.preview.text, 'Use WELCOMEBACK');
  const previewData = await app.request({ method: 'POST', url: `/admin/marketing/templates/${template.id}/preview`, ...as, payload: { data: { discountCode: '<b>' } } });
  t.equal(previewData.body.data.preview.html, '<p>Use &lt;b&gt;</p>', 'html output is escaped');

  // The transactional renderer finds a store template by key (test-template send lists it).
  const other = await signupOwner(app);
  t.equal((await app.request({ url: `/admin/marketing/templates/${template.id}`, token: other.accessToken, storeId: other.store.id })).status, 404);
  t.equal((await app.request({ method: 'DELETE', url: `/admin/marketing/templates/${template.id}`, token: other.accessToken, storeId: other.store.id })).status, 404);
  const staff = await addMember(app, owner.store.id, 'staff');
  t.equal((await app.request({ url: '/admin/marketing/templates', token: staff.accessToken, storeId: owner.store.id })).status, 403);

  t.equal((await app.request({ method: 'DELETE', url: `/admin/marketing/templates/${template.id}`, ...as })).status, 204);
  t.equal((await app.request({ url: `/admin/marketing/templates/${template.id}`, ...as })).status, 404);
  t.equal((await app.request({ url: '/admin/marketing/templates/not-a-uuid', ...as })).status, 422);
});

t.test('lists: members, memberCount, tenant isolation, and deleting a customer removes it from lists', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  const ids = await seedCustomers(app, owner.store.id, 3, { prefix: 'list' });
  const foreign = await seedCustomers(app, other.store.id, 1, { prefix: 'foreign' });

  const created = await app.request({ method: 'POST', url: '/admin/marketing/lists', ...as, payload: { name: 'VIP', description: 'Best', customerIds: [ids[0], ids[1], ids[1]] } });
  t.equal(created.status, 201, created.raw);
  const list = created.body.data.list;
  t.match(list, { name: 'VIP', description: 'Best', memberCount: 2 });
  t.same([...list.customerIds].sort(), [ids[0], ids[1]].sort());

  const withForeign = await app.request({ method: 'POST', url: '/admin/marketing/lists', ...as, payload: { name: 'X', customerIds: [foreign[0]] } });
  t.equal(withForeign.status, 422, "another store's customer is unknown here");

  const replaced = await app.request({ method: 'PUT', url: `/admin/marketing/lists/${list.id}`, ...as, payload: { name: 'VIP+', customerIds: [ids[1], ids[2]] } });
  t.equal(replaced.status, 200);
  t.match(replaced.body.data.list, { name: 'VIP+', description: null, memberCount: 2 });

  // Membership survives a customer update; deleting the customer removes it.
  await app.request({ method: 'PATCH', url: `/admin/customers/${ids[1]}`, ...as, payload: { firstName: 'Renamed' } });
  await app.ctx.db('customers').where({ id: ids[2] }).delete();
  const fetched = await app.request({ url: `/admin/marketing/lists/${list.id}`, ...as });
  t.same(fetched.body.data.list.customerIds, [ids[1]]);
  t.equal(fetched.body.data.list.memberCount, 1);

  const listed = await app.request({ url: '/admin/marketing/lists', ...as });
  t.equal(listed.body.data.lists.length, 1);
  t.equal((await app.request({ url: `/admin/marketing/lists/${list.id}`, token: other.accessToken, storeId: other.store.id })).status, 404);
  t.equal((await app.request({ method: 'PUT', url: `/admin/marketing/lists/${list.id}`, token: other.accessToken, storeId: other.store.id, payload: { name: 'x' } })).status, 404);
  t.equal((await app.request({ method: 'DELETE', url: `/admin/marketing/lists/${list.id}`, ...as })).status, 204);
  t.equal((await app.request({ url: `/admin/marketing/lists/${list.id}`, ...as })).status, 404);
});

t.test('audience preview: lists plus filters in SQL, only subscribed and unsuppressed customers', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  const preview = (audience: unknown) => app.request({ method: 'POST', url: '/admin/marketing/audience/preview', ...as, payload: { audience } });

  const fresh = await seedCustomers(app, owner.store.id, 3, { prefix: 'fresh', tags: ['vip'] });
  const loyal = await seedCustomers(app, owner.store.id, 2, { prefix: 'loyal', ordersCount: 5, totalSpent: 50_000, lastOrderDaysAgo: 10 });
  const lapsed = await seedCustomers(app, owner.store.id, 4, { prefix: 'lapsed', ordersCount: 1, totalSpent: 2_000, lastOrderDaysAgo: 200 });
  await seedCustomers(app, owner.store.id, 5, { prefix: 'unsub', emailMarketing: 'unsubscribed', tags: ['vip'] });
  await seedCustomers(app, owner.store.id, 5, { prefix: 'never', emailMarketing: 'not_subscribed' });
  await seedCustomers(app, other.store.id, 7, { prefix: 'elsewhere' });
  await app.ctx.db('marketingSuppressions').insert({ storeId: owner.store.id, email: 'fresh3@example.com', reason: 'test' });

  const all = await preview({});
  t.equal(all.status, 200, all.raw);
  t.equal(all.body.data.count, 3 + 2 + 4 - 1, 'subscribed, minus the suppressed address, this store only');
  t.equal(all.body.data.sample.length, 8);
  t.same(Object.keys(all.body.data.sample[0]).sort(), ['email', 'firstName', 'id', 'lastName']);

  t.equal((await preview({ filters: { tags: ['vip'] } })).body.data.count, 2);
  t.equal((await preview({ filters: { minOrders: 2 } })).body.data.count, 2);
  t.equal((await preview({ filters: { minTotalSpent: 2_000 } })).body.data.count, 6);
  const before = new Date(Date.now() - 100 * 86400_000).toISOString();
  t.equal((await preview({ filters: { lastOrderBefore: before } })).body.data.count, 4);
  t.equal((await preview({ filters: { lastOrderAfter: before } })).body.data.count, 2);
  t.equal((await preview({ filters: { lastOrderAfter: before, minOrders: 1, minTotalSpent: 60_000 } })).body.data.count, 0);

  const list = await app.request({ method: 'POST', url: '/admin/marketing/lists', ...as, payload: { name: 'L', customerIds: [fresh[0], loyal[0], lapsed[0]] } });
  const listId = list.body.data.list.id;
  const byList = await preview({ listIds: [listId] });
  t.equal(byList.body.data.count, 3);
  t.same(byList.body.data.sample.map((s: { id: string }) => s.id).sort(), [fresh[0], loyal[0], lapsed[0]].sort());
  t.equal((await preview({ listIds: [listId], filters: { minOrders: 1 } })).body.data.count, 2);
  t.equal((await preview({ listIds: ['00000000-0000-4000-8000-000000000000'] })).status, 422);
  // Nobody has bought anything yet.
  t.equal((await preview({ filters: { purchasedProductIds: ['00000000-0000-4000-8000-000000000000'] } })).body.data.count, 0);

  // Empty arrays restrict nothing, in a preview and in the campaign it previews.
  const empties = { listIds: [], filters: { tags: [], purchasedProductIds: [], purchasedCollectionIds: [] } };
  for (const audience of [{ listIds: [] }, { filters: { tags: [] } }, empties]) {
    const response = await preview(audience);
    t.equal(response.status, 200, response.raw);
    t.equal(response.body.data.count, all.body.data.count, `${JSON.stringify(audience)} is everyone`);
  }
  const withEmpties = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/generic', ...as, payload: { subject: 's', text: 't', audience: empties } });
  t.equal(withEmpties.status, 202, withEmpties.raw);
  const { startCampaign } = await import('../../../src/services/marketing/start.js');
  await startCampaign(app.ctx, withEmpties.body.data.campaign.id);
  const started = await app.request({ url: `/admin/marketing/campaigns/${withEmpties.body.data.campaign.id}`, ...as });
  t.equal(started.body.data.campaign.recipients, all.body.data.count, 'the campaign reaches whom the preview counted');
  const announcement = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/product-announcement', ...as, payload: { productId: '00000000-0000-4000-8000-000000000000', audience: { listIds: [] } } });
  t.equal(announcement.status, 404, 'an empty list of lists passes validation (the unknown product is what fails)');

  t.equal((await preview({ filters: { minOrders: -1 } })).status, 422);
  t.equal((await preview({ filters: { bogus: 1 } })).status, 422);
  t.equal((await app.request({ method: 'POST', url: '/admin/marketing/audience/preview', ...as, payload: {} })).status, 422);
});

t.test('malformed params, queries and bodies on every marketing route get 4xx, never 5xx', async (t) => {
  const owner = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  const uuid = '00000000-0000-4000-8000-000000000000';
  const routes: Array<[string, string]> = [
    ['GET', '/admin/marketing/templates'],
    ['POST', '/admin/marketing/templates'],
    ['GET', `/admin/marketing/templates/${uuid}`],
    ['PUT', `/admin/marketing/templates/${uuid}`],
    ['DELETE', `/admin/marketing/templates/${uuid}`],
    ['POST', `/admin/marketing/templates/${uuid}/preview`],
    ['GET', '/admin/marketing/lists'],
    ['POST', '/admin/marketing/lists'],
    ['PUT', `/admin/marketing/lists/${uuid}`],
    ['DELETE', `/admin/marketing/lists/${uuid}`],
    ['POST', '/admin/marketing/audience/preview'],
    ['POST', '/admin/marketing/campaigns/generic'],
    ['POST', '/admin/marketing/campaigns/newsletter'],
    ['POST', '/admin/marketing/campaigns/old-customers'],
    ['POST', '/admin/marketing/campaigns/product-announcement'],
    ['POST', '/admin/marketing/campaigns/collection-announcement'],
    ['GET', '/admin/marketing/campaigns'],
    ['GET', `/admin/marketing/campaigns/${uuid}`],
    ['POST', `/admin/marketing/campaigns/${uuid}/cancel`],
    ['GET', `/public/c/${uuid}`]
  ];
  const bodies: unknown[] = [[], 'text', 42, { name: { $ne: 1 } }, { audience: { listIds: 'x', filters: { tags: [1] } } }, { subject: 'x'.repeat(5000) }, { sendAt: 'yesterday', subject: 's', text: 't' }];
  for (const [method, url] of routes) {
    const probes = [
      app.request({ method, url: url.replace(uuid, 'not-a-uuid'), ...as }),
      app.request({ method, url: `${url}?limit=0&cursor=%%%&status=nope&q=${'x'.repeat(500)}`, ...as }),
      app.request({ method, url: `${url}?cursor=eyJ4IjoxfQ`, ...as })
    ];
    if (method !== 'GET' && method !== 'DELETE') for (const payload of bodies) probes.push(app.request({ method, url, payload, ...as }));
    for (const response of await Promise.all(probes)) t.ok(response.status >= 200 && response.status < 500, `${method} ${url}: ${response.status} ${response.raw.slice(0, 200)}`);
  }
  t.equal((await app.request({ url: '/admin/marketing/campaigns' })).status, 401);
});

t.test('campaign-creating POSTs honour Idempotency-Key: a repeat returns the first campaign and creates nothing', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  const payload = { subject: 'Once', text: 'only', sendAt: new Date(Date.now() + 3_600_000).toISOString() };
  const send = (key: string, body: unknown = payload) =>
    app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', ...as, payload: body, headers: { 'idempotency-key': key } });
  const [first, second] = await Promise.all([send('k-1'), send('k-1')]).then(async (responses) => responses.sort((a, b) => a.status - b.status));
  t.equal(first!.status, 202, first!.raw);
  const repeat = await send('k-1');
  t.equal(repeat.status, 202);
  t.equal(repeat.body.data.campaign.id, first!.body.data.campaign.id, 'same campaign');
  t.ok(second!.status === 202 ? second!.body.data.campaign.id === first!.body.data.campaign.id : second!.status === 409, `concurrent repeat: ${second!.status}`);
  const other = await send('k-2');
  t.not(other.body.data.campaign.id, first!.body.data.campaign.id, 'another key creates another campaign');
  const campaigns = await app.ctx.db('campaigns').where({ storeId: owner.store.id }).count<{ n: string }[]>('* as n').first();
  t.equal(Number(campaigns?.n), 2);
  const starts = await app.ctx.db('outbox').where({ name: 'campaign-start' }).count<{ n: string }[]>('* as n').first().catch(() => null);
  t.ok(!starts || Number(starts.n) <= 2, 'no third start job');
});

t.test('a campaign answers with the audience it was given, filters and lists included (its declared schema holds)', async (t) => {
  const owner = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  const list = await app.request({ method: 'POST', url: '/admin/marketing/lists', ...as, payload: { name: 'VIPs' } });
  const audience = {
    listIds: [list.body.data.list.id],
    filters: {
      tags: ['vip'],
      lastOrderBefore: '2026-01-01T00:00:00.000Z',
      lastOrderAfter: '2025-01-01T00:00:00.000Z',
      minOrders: 1,
      minTotalSpent: 1_000,
      purchasedProductIds: ['00000000-0000-4000-8000-000000000000'],
      purchasedCollectionIds: ['00000000-0000-4000-8000-000000000001']
    }
  };
  const sendAt = new Date(Date.now() + 3_600_000).toISOString();
  const created = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/generic', ...as, payload: { subject: 'Hi', text: 'x', audience, sendAt } });
  t.equal(created.status, 202, created.raw);
  t.same(created.body.data.campaign.audience, audience);
  const read = await app.request({ url: `/admin/marketing/campaigns/${created.body.data.campaign.id}`, ...as });
  t.equal(read.status, 200, read.raw);
  t.same(read.body.data.campaign.audience, audience);

  const winBack = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/old-customers', ...as, payload: { subject: 'Back?', text: 'x', inactiveDays: 30, sendAt } });
  t.equal(winBack.status, 202, winBack.raw);
  t.same(winBack.body.data.campaign.audience, { inactiveDays: 30 });
  const listed = await app.request({ url: '/admin/marketing/campaigns', ...as });
  t.equal(listed.status, 200, listed.raw);
  t.equal(listed.body.data.campaigns.length, 2);
});
