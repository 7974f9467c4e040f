import t from 'tap';
import { addMember, buildApp, signupOwner, type TestApp } from '../../helpers/app.js';

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('customers: list filters, get, patch, roles and tenancy', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const staff = await addMember(app, owner.store.id, 'staff');
  const db = app.ctx.db;
  const [ann] = await db('customers')
    .insert({ storeId: owner.store.id, email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee', tags: ['vip'], emailMarketing: 'subscribed' })
    .returning('*');
  await db('customers').insert([
    { storeId: owner.store.id, email: 'bob@example.com', firstName: 'Bob', lastName: 'Annan' },
    { storeId: owner.store.id, email: 'cy@example.com', firstName: 'Cy', tags: ['vip', 'wholesale'], emailMarketing: 'unsubscribed' }
  ]);
  const [foreign] = await db('customers').insert({ storeId: other.store.id, email: 'ann@example.com', firstName: 'Foreign' }).returning('*');

  const as = (who: typeof owner, url: string, method = 'GET', payload?: unknown) =>
    app.request({ method, url, payload, token: who.accessToken, storeId: owner.store.id });

  const all = await as(staff, '/admin/customers?limit=2');
  t.equal(all.status, 200, 'staff may list');
  t.equal(all.body.data.customers.length, 2);
  t.ok(all.body.meta.pagination.nextCursor);
  const rest = await as(staff, `/admin/customers?limit=2&cursor=${all.body.meta.pagination.nextCursor}`);
  t.equal(rest.body.data.customers.length, 1);
  t.equal(rest.body.meta.pagination.nextCursor, null);

  const emails = async (query: string) => (await as(owner, `/admin/customers?${query}`)).body.data.customers.map((c: { email: string }) => c.email).sort();
  t.same(await emails('q=ann'), ['ann@example.com', 'bob@example.com'], 'q matches email and last name prefixes');
  t.same(await emails('q=ANN%20L'), ['ann@example.com'], 'full name');
  t.same(await emails('tag=vip'), ['ann@example.com', 'cy@example.com']);
  t.same(await emails('emailMarketing=unsubscribed'), ['cy@example.com']);
  t.same(await emails('emailMarketing=subscribed&tag=vip'), ['ann@example.com']);
  t.equal((await as(owner, '/admin/customers?emailMarketing=maybe')).status, 422);

  const got = await as(staff, `/admin/customers/${ann.id}`);
  t.equal(got.status, 200);
  t.match(got.body.data.customer, { id: ann.id, email: 'ann@example.com', firstName: 'Ann', tags: ['vip'], emailMarketing: 'subscribed', ordersCount: 0, totalSpent: 0, lastOrderAt: null });
  t.same(got.body.data.recentOrders, []);
  t.equal((await as(owner, `/admin/customers/${foreign.id}`)).status, 404, "another store's customer is 404");
  t.equal((await as(owner, `/admin/customers/${foreign.id}`, 'PATCH', { firstName: 'x' })).status, 404);

  const patched = await as(staff, `/admin/customers/${ann.id}`, 'PATCH', { firstName: '  Anne ', tags: ['vip', 'new'], note: '', emailMarketing: 'unsubscribed' });
  t.equal(patched.status, 200, 'staff may update');
  t.match(patched.body.data.customer, { firstName: 'Anne', tags: ['vip', 'new'], note: null, emailMarketing: 'unsubscribed', emailMarketingSource: 'admin' });
  const taken = await as(owner, `/admin/customers/${ann.id}`, 'PATCH', { email: 'BOB@example.com' });
  t.equal(taken.status, 409);
  t.equal(taken.body.error.code, 'email_taken');
  const moved = await as(owner, `/admin/customers/${ann.id}`, 'PATCH', { email: 'Anne@Example.com' });
  t.equal(moved.body.data.customer.email, 'anne@example.com');
  t.equal((await as(owner, `/admin/customers/${ann.id}`, 'PATCH', { ordersCount: 9 })).status, 422, 'unknown keys rejected');
  t.equal((await as(owner, `/admin/customers/${ann.id}`, 'PATCH', { tags: ['a,b'] })).status, 422);

  const importByStaff = await app.request({
    method: 'POST', url: '/admin/customers/import', payload: 'email\nz@example.com\n', token: staff.accessToken, storeId: owner.store.id, headers: { 'content-type': 'text/csv' }
  });
  t.equal(importByStaff.status, 403, 'staff cannot import');
  t.equal((await as(staff, '/admin/customers/export', 'POST')).status, 403, 'staff cannot export');
  t.equal((await as(staff, '/admin/jobs')).status, 403, 'staff cannot read jobs');
  const admin = await addMember(app, owner.store.id, 'admin');
  t.equal((await as(admin, '/admin/customers/export', 'POST')).status, 202, 'admins can export');
  t.equal((await as(other, '/admin/customers')).status, 403, 'non-member');
});

t.test('jobs API lists by type, pages, and stays scoped to the store', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  for (let i = 0; i < 3; i++) {
    await app.request({ method: 'POST', url: '/admin/customers/export', token: owner.accessToken, storeId: owner.store.id });
  }
  await app.request({ method: 'POST', url: '/admin/customers/import', payload: 'email\na@example.com\n', token: owner.accessToken, storeId: owner.store.id, headers: { 'content-type': 'text/csv' } });
  const list = async (who: typeof owner, query = '') =>
    app.request({ url: `/admin/jobs${query}`, token: who.accessToken, storeId: who.store.id });
  const exports = await list(owner, '?type=customers.export&limit=2');
  t.equal(exports.status, 200);
  t.equal(exports.body.data.jobs.length, 2);
  t.ok(exports.body.data.jobs.every((j: { type: string; status: string }) => j.type === 'customers.export' && j.status === 'queued'));
  const next = await list(owner, `?type=customers.export&limit=2&cursor=${exports.body.meta.pagination.nextCursor}`);
  t.equal(next.body.data.jobs.length, 1);
  t.equal((await list(owner)).body.data.jobs.length, 4);
  t.equal((await list(other)).body.data.jobs.length, 0);
  const id = exports.body.data.jobs[0].id;
  const job = await app.request({ url: `/admin/jobs/${id}`, token: owner.accessToken, storeId: owner.store.id });
  t.same(Object.keys(job.body.data.job).sort(), ['createdAt', 'error', 'finishedAt', 'id', 'progress', 'result', 'startedAt', 'status', 'type']);
  t.equal((await app.request({ url: `/admin/jobs/${id}/download`, token: owner.accessToken, storeId: owner.store.id })).status, 409, 'not completed yet: a conflict, not an unknown job');

  // The row survives the job's removal from Redis.
  await app.ctx.queues.get('imports').obliterate({ force: true });
  const after = await app.request({ url: `/admin/jobs/${id}`, token: owner.accessToken, storeId: owner.store.id });
  t.equal(after.status, 200);
  t.equal(after.body.data.job.id, id);
});
