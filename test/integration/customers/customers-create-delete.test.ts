import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';

/** POST /admin/customers (a customer made by hand) and DELETE /admin/customers/{id} (issue #37). */
t.test('customers: create by hand and delete', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const staff = await addMember(app, owner.store.id, 'staff');
  const as = (who: { accessToken: string }, url: string, method = 'GET', payload?: unknown) =>
    app.request({ method, url, payload, token: who.accessToken, storeId: owner.store.id });

  const created = await as(staff, '/admin/customers', 'POST', { email: ' Dora@Example.com ', firstName: 'Dora', lastName: '', tags: ['vip'], emailMarketing: 'subscribed' });
  t.equal(created.status, 201, 'staff may create a customer');
  t.match(created.body.data.customer, {
    email: 'dora@example.com',
    firstName: 'Dora',
    lastName: null,
    tags: ['vip'],
    emailMarketing: 'subscribed',
    emailMarketingSource: 'admin',
    ordersCount: 0,
    totalSpent: 0
  });
  t.ok(created.body.data.customer.emailMarketingUpdatedAt, 'the consent is recorded with its time');
  const id = created.body.data.customer.id as string;
  t.equal((await as(owner, `/admin/customers/${id}`)).body.data.customer.email, 'dora@example.com', 'it is there to read');

  const plain = await as(owner, '/admin/customers', 'POST', { email: 'eve@example.com' });
  t.match(plain.body.data.customer, { emailMarketing: 'not_subscribed', emailMarketingUpdatedAt: null, emailMarketingSource: null, tags: [] });

  const duplicate = await as(owner, '/admin/customers', 'POST', { email: 'DORA@example.com' });
  t.equal(duplicate.status, 409, 'a duplicate email is 409');
  t.equal(duplicate.body.error.code, 'email_taken');
  t.match(duplicate.body.error.details, [{ path: 'email' }]);

  const invalid = await as(owner, '/admin/customers', 'POST', { email: 'not-an-email', emailMarketing: 'maybe' });
  t.equal(invalid.status, 422, 'bad input is 422 with details');
  t.same(invalid.body.error.details.map((d: { path: string }) => d.path).sort(), ['email', 'emailMarketing']);
  t.equal((await as(owner, '/admin/customers', 'POST', {})).status, 422, 'the email is required');
  t.equal((await as(owner, '/admin/customers', 'POST', { email: 'x@example.com', ordersCount: 3 })).status, 422, 'unknown keys rejected');

  const sameEmailElsewhere = await app.request({ method: 'POST', url: '/admin/customers', payload: { email: 'dora@example.com' }, token: other.accessToken, storeId: other.store.id });
  t.equal(sameEmailElsewhere.status, 201, 'another store may have the same email');
  const foreignId = sameEmailElsewhere.body.data.customer.id as string;

  // An API key: read_customers may not create; write_customers may.
  const keyWith = async (scopes: string[]) =>
    (await as(owner, '/admin/store/api-keys', 'POST', { name: scopes.join(' '), scopes })).body.data.secret as string;
  const reader = await keyWith(['read_customers']);
  const writer = await keyWith(['write_customers']);
  const byKey = (key: string, payload: unknown) => app.request({ method: 'POST', url: '/admin/customers', payload, headers: { authorization: `Bearer ${key}` } });
  t.equal((await byKey(reader, { email: 'k1@example.com' })).status, 403, 'read_customers cannot create');
  t.equal((await byKey(writer, { email: 'k2@example.com' })).status, 201, 'write_customers creates');

  // Delete: owner and admin; another store's customer is 404; list memberships go, orders stay.
  const [list] = await app.ctx.db('marketingLists').insert({ storeId: owner.store.id, name: 'VIPs' }).returning('*');
  await app.ctx.db('marketingListMembers').insert({ storeId: owner.store.id, listId: list.id, customerId: id });
  t.equal((await as(staff, `/admin/customers/${id}`, 'DELETE')).status, 403, 'staff may not delete');
  t.equal((await as(owner, `/admin/customers/${foreignId}`, 'DELETE')).status, 404, "another store's customer is 404");
  const deleted = await as(owner, `/admin/customers/${id}`, 'DELETE');
  t.equal(deleted.status, 204);
  t.equal((await as(owner, `/admin/customers/${id}`)).status, 404, 'gone');
  t.equal((await as(owner, `/admin/customers/${id}`, 'DELETE')).status, 404, 'deleting twice is 404');
  t.equal((await app.ctx.db('marketingListMembers').where({ storeId: owner.store.id, listId: list.id })).length, 0, 'list membership went with it');
  t.equal((await app.ctx.db('customers').where({ storeId: other.store.id, id: foreignId })).length, 1, "the other store's customer is untouched");
  const again = await as(owner, '/admin/customers', 'POST', { email: 'dora@example.com' });
  t.equal(again.status, 201, 'the email is free again');
});
