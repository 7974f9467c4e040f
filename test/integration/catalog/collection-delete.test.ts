import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';

/**
 * DELETE /admin/collections/{id} (issue #37: the console deletes a collection): the products stay,
 * the storefront stops showing it, another store's id is 404, staff may (catalog), an API key needs
 * write_products, and the audit entry keeps what the collection was.
 */
t.test('a collection deleted: products kept, storefront gone, tenancy, roles, scopes, audit', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const mug = await createProduct(app, owner, { title: 'Mug', status: 'active', variants: [{ price: 100 }] });
  const make = async (title: string) => {
    const created = await app.request({ method: 'POST', url: '/admin/collections', payload: { title, isPublished: true, productIds: [mug.id] }, ...admin(owner) });
    t.equal(created.status, 201, created.raw);
    return created.body.data.collection as { id: string; slug: string };
  };
  const kitchen = await make('Kitchen');
  t.equal((await app.request({ url: `/storefront/collections/${kitchen.slug}`, storefrontToken: owner.storefrontToken })).status, 200, 'published on the storefront');

  const foreign = await app.request({ method: 'DELETE', url: `/admin/collections/${kitchen.id}`, ...admin(other) });
  t.equal(foreign.status, 404, 'another store cannot delete it, nor learn it exists');
  t.equal(foreign.body.error.code, 'not_found');

  const deleted = await app.request({ method: 'DELETE', url: `/admin/collections/${kitchen.id}`, ...admin(owner) });
  t.equal(deleted.status, 200, deleted.raw);
  t.same(deleted.body.data, { deleted: true, id: kitchen.id });
  t.equal((await app.request({ url: `/admin/collections/${kitchen.id}`, ...admin(owner) })).status, 404, 'gone from the admin API');
  t.equal((await app.request({ url: `/storefront/collections/${kitchen.slug}`, storefrontToken: owner.storefrontToken })).status, 404, 'and from the storefront');
  t.equal((await app.request({ url: `/admin/products/${mug.id}`, ...admin(owner) })).status, 200, 'its product stays');
  t.equal((await app.request({ method: 'DELETE', url: `/admin/collections/${kitchen.id}`, ...admin(owner) })).status, 404, 'a second delete is 404');

  const [entry] = (await app.request({ url: `/admin/store/audit-log?action=collection.deleted&resourceId=${kitchen.id}`, ...admin(owner) })).body.data.entries;
  t.match(entry, { action: 'collection.deleted', resource: { type: 'collection', id: kitchen.id }, actor: { type: 'user', userId: owner.user.id } }, 'the audit entry names the member and the collection');
  t.match(JSON.stringify(entry.changes), /Kitchen/, 'and keeps what it was');

  const staff = await addMember(app, owner.store.id, 'staff');
  const byStaff = await make('Staff can');
  t.equal((await app.request({ method: 'DELETE', url: `/admin/collections/${byStaff.id}`, token: staff.accessToken, storeId: owner.store.id })).status, 200, 'staff manage the catalog');

  const keyFor = async (scope: string) => {
    const created = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: scope, scopes: [scope] }, ...admin(owner) });
    t.equal(created.status, 201, created.raw);
    return { headers: { authorization: `Bearer ${created.body.data.secret}` } };
  };
  const byKey = await make('By key');
  const reader = await app.request({ method: 'DELETE', url: `/admin/collections/${byKey.id}`, ...(await keyFor('read_products')) });
  t.equal(reader.status, 403, 'a read_products key may not delete');
  t.equal((await app.request({ method: 'DELETE', url: `/admin/collections/${byKey.id}`, ...(await keyFor('write_products')) })).status, 200, 'a write_products key may');
});
