import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';

/**
 * DELETE /admin/discounts/{id} (issue #37): an unused code is deleted; one used on an order (even
 * after that order was cancelled and its use given back) or held by a pending checkout answers 409
 * discount_in_use, telling the operator to deactivate it; another store's id is 404; staff and keys
 * without the marketing scope are refused; the audit entry keeps the code.
 */
t.test('discounts deleted unless used on an order', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  await setupShop(app, owner);
  const mug = await sellable(app, owner, 'Mug', [{ price: 2000, stock: 20 }]);
  const create = async (code: string) => {
    const created = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code, type: 'percentage', value: 10 }, ...admin(owner) });
    t.equal(created.status, 201, created.raw);
    return created.body.data.discount as { id: string };
  };
  const del = (id: string, auth: object = admin(owner)) => app.request({ method: 'DELETE', url: `/admin/discounts/${id}`, ...auth });

  await t.test('an unused code is deleted, once; not from another store', async (t) => {
    const unused = await create('UNUSED');
    const foreign = await del(unused.id, admin(other));
    t.equal(foreign.status, 404, 'another store: 404');
    t.equal(foreign.body.error.code, 'not_found');
    const deleted = await del(unused.id);
    t.equal(deleted.status, 200, deleted.raw);
    t.same(deleted.body.data, { deleted: true, id: unused.id });
    t.equal((await app.request({ url: `/admin/discounts/${unused.id}`, ...admin(owner) })).status, 404, 'gone');
    t.equal((await del(unused.id)).status, 404, 'a second delete is 404');
    const [entry] = (await app.request({ url: `/admin/store/audit-log?action=discount.deleted&resourceId=${unused.id}`, ...admin(owner) })).body.data.entries;
    t.match(entry, { action: 'discount.deleted', resource: { type: 'discount', id: unused.id }, actor: { type: 'user', userId: owner.user.id } }, 'audited');
    t.match(JSON.stringify(entry.changes), /UNUSED/, 'the entry keeps the code');
    const code = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: 'unused', type: 'percentage', value: 5 }, ...admin(owner) });
    t.equal(code.status, 201, 'its code is free again');
  });

  await t.test('a code used on an order is kept: 409 discount_in_use, deactivate instead', async (t) => {
    const used = await create('USED10');
    const held = await openSession(app, owner, [{ variantId: mug.variants[0]!.id, quantity: 1 }], { code: 'used10', email: 'held@example.com' });
    t.equal(held.session.status, 201, held.session.raw);
    const pending = await del(used.id);
    t.equal(pending.status, 409, 'a pending checkout holds a use');
    t.equal(pending.body.error.code, 'discount_in_use');
    const placed = await confirm(app, owner, held.session.body.data.checkoutSession.id);
    t.equal(placed.status, 200, placed.raw);
    const refused = await del(used.id);
    t.equal(refused.status, 409);
    t.equal(refused.body.error.code, 'discount_in_use');
    t.match(refused.body.error.message, /deactivate/i, 'the message says what to do instead');
    const cancelled = await app.request({ method: 'POST', url: `/admin/orders/${placed.body.data.order.id}/cancel`, payload: { reason: 'test', notifyCustomer: false }, ...admin(owner) });
    t.equal(cancelled.status, 200, cancelled.raw);
    t.equal((await app.request({ url: `/admin/discounts/${used.id}`, ...admin(owner) })).body.data.discount.usageCount, 0, 'the cancel gave the use back');
    t.equal((await del(used.id)).status, 409, 'the cancelled order still carries the code');
    const renamed = await app.request({ method: 'PUT', url: `/admin/discounts/${used.id}`, payload: { code: 'RENAMED', type: 'percentage', value: 10 }, ...admin(owner) });
    t.equal(renamed.status, 200);
    t.equal((await del(used.id)).status, 409, 'a renamed code is still known by its completed checkout');
    const off = await app.request({ method: 'PUT', url: `/admin/discounts/${used.id}`, payload: { code: 'RENAMED', type: 'percentage', value: 10, isActive: false }, ...admin(owner) });
    t.equal(off.body.data.discount.isActive, false, 'deactivating is what is left');
  });

  await t.test('roles and scopes: owners and admins, keys with marketing', async (t) => {
    const staff = await addMember(app, owner.store.id, 'staff');
    const adminMember = await addMember(app, owner.store.id, 'admin');
    const a = await create('ROLE1');
    t.equal((await del(a.id, { token: staff.accessToken, storeId: owner.store.id })).status, 403, 'staff refused');
    t.equal((await del(a.id, { token: adminMember.accessToken, storeId: owner.store.id })).status, 200, 'an admin may');
    const keyFor = async (scope: string) => {
      const created = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: scope, scopes: [scope] }, ...admin(owner) });
      t.equal(created.status, 201, created.raw);
      return { headers: { authorization: `Bearer ${created.body.data.secret}` } };
    };
    const b = await create('ROLE2');
    t.equal((await del(b.id, await keyFor('write_products'))).status, 403, 'a key without marketing refused');
    t.equal((await del(b.id, await keyFor('marketing'))).status, 200, 'a marketing key may');
  });
});
