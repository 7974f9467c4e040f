import t from 'tap';
import { adjustInventory } from '../../../src/services/catalog/inventory.js';
import { transaction } from '../../../src/db/transaction.js';
import { addMember, buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('inventory: 30 concurrent -1 on a stock of 10 sell exactly 10', async (t) => {
  const owner = await signupOwner(app);
  const product = await createProduct(app, owner, { title: 'Limited', variants: [{ sku: 'LTD', price: 1000, inventoryQuantity: 10 }] });
  const variant = product.variants[0];
  const url = `/admin/products/${product.id}/variants/${variant.id}/inventory`;
  const responses = await Promise.all(Array.from({ length: 30 }, () => app.request({ method: 'POST', url, payload: { delta: -1, reason: 'sale' }, ...admin(owner) })));
  const statuses = responses.map((r) => r.status);
  t.equal(statuses.filter((s) => s === 200).length, 10, 'exactly 10 succeed');
  t.equal(statuses.filter((s) => s === 409).length, 20, 'the other 20 are refused');
  t.ok(responses.filter((r) => r.status === 409).every((r) => r.body.error.code === 'insufficient_inventory'));
  const row = await app.ctx.db('productVariants').where({ id: variant.id }).first();
  t.equal(row.inventoryQuantity, 0, 'never below zero');
  // The variant's opening stock is the first ledger row (reason 'new variant'); the sales follow.
  const ledger = await app.ctx.db('inventoryLedger').where({ variantId: variant.id }).whereNot({ reason: 'new variant' }).orderBy('quantityAfter', 'desc');
  t.equal(ledger.length, 10, 'one ledger row per successful change');
  t.same(ledger.map((r) => r.quantityAfter), [9, 8, 7, 6, 5, 4, 3, 2, 1, 0], 'each row records the resulting quantity');
  t.ok(ledger.every((r) => r.delta === -1 && r.userId === owner.user.id && r.reason === 'sale'), 'who, delta and reason recorded');
});

t.test('inventory: delta, quantity, continue policy, validation, errors', async (t) => {
  const owner = await signupOwner(app);
  const product = await createProduct(app, owner, {
    title: 'Socks',
    variants: [
      { sku: 'SOCK-D', price: 500, inventoryQuantity: 2 },
      { sku: 'SOCK-C', price: 500, inventoryQuantity: 0, inventoryPolicy: 'continue' }
    ]
  });
  const [deny, backorder] = product.variants;
  const url = (variantId: string, productId = product.id) => `/admin/products/${productId}/variants/${variantId}/inventory`;

  const add = await app.request({ method: 'POST', url: url(deny.id), payload: { delta: 5 }, ...admin(owner) });
  t.equal(add.status, 200, add.raw);
  t.equal(add.body.data.variant.inventoryQuantity, 7);
  t.equal(add.body.data.adjustment.delta, 5);
  t.equal(add.body.data.adjustment.quantityAfter, 7);
  t.equal(add.body.data.adjustment.reason, 'adjustment', 'default reason');

  const tooMuch = await app.request({ method: 'POST', url: url(deny.id), payload: { delta: -8 }, ...admin(owner) });
  t.equal(tooMuch.status, 409);
  t.equal(tooMuch.body.error.code, 'insufficient_inventory');

  const count = await app.request({ method: 'POST', url: url(deny.id), payload: { quantity: 3, reason: 'stocktake' }, ...admin(owner) });
  t.equal(count.status, 200);
  t.equal(count.body.data.variant.inventoryQuantity, 3);
  t.equal(count.body.data.adjustment.delta, -4, 'setting a quantity records the difference');
  const same = await app.request({ method: 'POST', url: url(deny.id), payload: { quantity: 3 }, ...admin(owner) });
  t.equal(same.status, 200);
  t.equal(same.body.data.adjustment, null, 'no change, no ledger row');

  const oversell = await app.request({ method: 'POST', url: url(backorder.id), payload: { delta: -4 }, ...admin(owner) });
  t.equal(oversell.status, 200, 'continue variants may go below zero');
  t.equal(oversell.body.data.variant.inventoryQuantity, -4);
  t.equal(oversell.body.data.variant.available, true);

  for (const payload of [{}, { delta: 0 }, { delta: 1, quantity: 1 }, { quantity: -1 }, { delta: 1.5 }, { delta: 1, note: 'x' }]) {
    const response = await app.request({ method: 'POST', url: url(deny.id), payload, ...admin(owner) });
    t.equal(response.status, 422, `${JSON.stringify(payload)} → 422`);
  }
  const other = await createProduct(app, owner, { title: 'Other', variants: [{ price: 1 }] });
  const wrongProduct = await app.request({ method: 'POST', url: url(deny.id, other.id), payload: { delta: 1 }, ...admin(owner) });
  t.equal(wrongProduct.status, 404, 'the variant must belong to the product in the path');
  const unknown = await app.request({ method: 'POST', url: url('00000000-0000-4000-8000-000000000000'), payload: { quantity: 1 }, ...admin(owner) });
  t.equal(unknown.status, 404);

  const staff = await addMember(app, owner.store.id, 'staff');
  const byStaff = await app.request({ method: 'POST', url: url(deny.id), payload: { delta: 1 }, token: staff.accessToken, storeId: owner.store.id });
  t.equal(byStaff.status, 200, 'staff may adjust inventory');
  t.equal(byStaff.body.data.variant.inventoryQuantity, 4);

  const dashboard = await app.request({ url: '/admin/store', ...admin(owner) });
  t.equal(dashboard.body.data.stats.productsCount, 2, 'dashboard counts the catalog');
  t.equal(dashboard.body.data.stats.lowStockVariants, 2, 'deny variants at or below 5 (SOCK-D at 4, Other at 0)');
});

t.test('inventory: the service joins a caller transaction (checkout)', async (t) => {
  const owner = await signupOwner(app);
  const product = await createProduct(app, owner, { title: 'Kit', variants: [{ price: 1, inventoryQuantity: 1 }, { price: 1, inventoryQuantity: 0 }] });
  const [inStock, empty] = product.variants;
  await t.rejects(
    transaction(app.ctx.db, async (trx) => {
      await adjustInventory(trx, owner.store.id, inStock.id, -1, { reason: 'order' });
      await adjustInventory(trx, owner.store.id, empty.id, -1, { reason: 'order' });
    }),
    { code: 'insufficient_inventory' }
  );
  const row = await app.ctx.db('productVariants').where({ id: inStock.id }).first();
  t.equal(row.inventoryQuantity, 1, 'the first decrement rolled back with the transaction');
  t.equal((await app.ctx.db('inventoryLedger').where({ variantId: inStock.id }).whereNot({ reason: 'new variant' })).length, 0, 'and its ledger row');
  const ok = await transaction(app.ctx.db, (trx) => adjustInventory(trx, owner.store.id, inStock.id, -1, { reason: 'order' }));
  t.equal(ok.variant.inventoryQuantity, 0);
  t.equal(ok.adjustment?.quantityAfter, 0);
  await t.rejects(transaction(app.ctx.db, (trx) => adjustInventory(trx, '00000000-0000-4000-8000-000000000000', inStock.id, 1)), { code: 'not_found' }, 'store scoped');
});
