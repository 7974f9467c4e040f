import t from 'tap';
import { PREPARED, preparedStatementName } from '../../../src/db/prepared-statements.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { ADDRESS, confirm, methodsOf, openSession, sellable, setupShop, sf } from '../../helpers/checkout.js';

t.test('a query marked PREPARED runs as a named statement, parsed once per connection', async (t) => {
  const app = await buildApp(t);
  const text = 'select $1::int + 1 as next';
  await app.ctx.db.transaction(async (trx) => {
    const first = await trx.raw('select ?::int + 1 as next', [1]).options(PREPARED);
    const second = await trx.raw('select ?::int + 1 as next', [41]).options(PREPARED);
    t.same([first.rows[0].next, second.rows[0].next], [2, 42], 'each execution gets its own values');
    await trx.raw('select ?::int + 2 as unprepared', [1]);
    const statements = await trx.raw('select name, statement from pg_prepared_statements order by name');
    const ours = statements.rows.filter((row: { statement: string }) => row.statement.includes('+ 1 as next') || row.statement.includes('unprepared'));
    t.same(ours, [{ name: preparedStatementName(text), statement: text }], 'one named statement for the marked text, none for the unmarked one');
  });
  t.equal(preparedStatementName(text), preparedStatementName(text), 'the same text always gets the same name');
  t.not(preparedStatementName(text), preparedStatementName(`${text} `), 'another text gets another name');
});

// Prepared statements name their columns: a column added while the service runs (a migration
// during a deploy) must not fail the shopper's next request with "cached plan must not change
// result type", as a prepared `select *` would.
t.test('checkout keeps working when a migration adds columns to its tables mid-flight', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Mug', [{ price: 1200, stock: 10 }]);
  const variantId = product.variants[0]!.id;

  // Warm every statement of the path more than five times, so PostgreSQL has cached generic plans.
  for (let i = 0; i < 6; i += 1) {
    const { session } = await openSession(app, owner, [{ variantId, quantity: 1 }]);
    t.equal(session.status, 201);
    t.equal((await confirm(app, owner, session.body.data.checkoutSession.id)).status, 200);
  }

  for (const table of ['carts', 'checkout_sessions', 'cart_items', 'product_variants', 'orders', 'customers', 'store_payment_accounts']) {
    await app.ctx.db.raw(`alter table ${table} add column added_by_migration text`);
  }

  const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: {}, ...sf(owner) });
  t.equal(cart.status, 201, 'create cart');
  const cartId = cart.body.data.cart.id;
  t.notOk('addedByMigration' in cart.body.data.cart, 'the response keeps its documented fields');
  const item = await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/items`, payload: { variantId, quantity: 2 }, ...sf(owner) });
  t.equal(item.status, 200, 'add item');
  t.equal(item.body.data.cart.subtotal, 2400);
  const shipping = await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload: { shippingMethodId: methodsOf(owner).standard }, ...sf(owner) });
  t.equal(shipping.status, 200, 'shipping method');
  const session = await app.request({
    method: 'POST',
    url: `/storefront/carts/${cartId}/checkout-session`,
    payload: { email: 'late@example.com', shippingAddress: ADDRESS },
    ...sf(owner)
  });
  t.equal(session.status, 201, 'checkout session');
  const order = await confirm(app, owner, session.body.data.checkoutSession.id);
  t.equal(order.status, 200, 'confirm');
  t.equal(order.body.data.order.items[0].quantity, 2);
  const variant = await app.ctx.db('productVariants').where({ id: variantId }).first('inventoryQuantity');
  t.equal(variant.inventoryQuantity, 2, '10 - 6 - 2 in stock');
});
