import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';

/**
 * Carts of several variants take their stock one variant at a time, always in variant-id order,
 * whatever order the shopper added them in: racing checkouts never deadlock, never oversell, and
 * the ones that miss get a clean 409.
 */
t.test('multi-variant checkouts racing in opposite orders: no deadlock, no oversell', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Pair', [{ price: 1000, stock: 5 }, { price: 1200, stock: 5 }]);
  const [a, b] = product.variants.map((v) => v.id) as [string, string];
  const outcomes = await Promise.all(
    Array.from({ length: 16 }, async (_, i) => {
      const items = i % 2 ? [{ variantId: a, quantity: 1 }, { variantId: b, quantity: 1 }] : [{ variantId: b, quantity: 1 }, { variantId: a, quantity: 1 }];
      const { session } = await openSession(app, owner, items, { email: `pair${i}@example.com` });
      if (session.status !== 201) return session;
      return confirm(app, owner, session.body.data.checkoutSession.id);
    })
  );
  const statuses = outcomes.map((o) => o.status);
  t.equal(statuses.filter((s) => s === 200).length, 5, 'five orders: the stock of each variant');
  t.equal(statuses.filter((s) => s === 409).length, 11, 'every other checkout a 409');
  t.ok(outcomes.filter((o) => o.status === 409).every((o) => o.body.error.code === 'insufficient_inventory'), 'each as insufficient_inventory');
  const stock = (await app.ctx.db('productVariants').whereIn('id', [a, b]).select('inventoryQuantity')).map((row: { inventoryQuantity: number }) => row.inventoryQuantity);
  t.same(stock, [0, 0], 'both variants sold out, neither below zero');
});
