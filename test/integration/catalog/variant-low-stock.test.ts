import t from 'tap';
import { LOW_STOCK_THRESHOLD } from '../../../src/services/catalog/module.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';

// The dashboard and the hourly scan read `product_variants.low_stock`, a generated column whose
// definition holds the threshold (so stock moves stay HOT updates); it must agree with
// LOW_STOCK_THRESHOLD at the boundary, for every policy and after archiving.
t.test('low stock: the generated flag agrees with LOW_STOCK_THRESHOLD, and no index holds the stock count', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  const product = await createProduct(app, owner, {
    title: 'Socks',
    variants: [
      { sku: 'deny', price: 100, inventoryQuantity: LOW_STOCK_THRESHOLD + 1 },
      { sku: 'continue', price: 100, inventoryQuantity: 0, inventoryPolicy: 'continue' }
    ]
  });
  const [deny, cont] = product.variants as Array<{ id: string }>;
  const url = (variantId: string) => `/admin/products/${product.id}/variants/${variantId}/inventory`;
  const lowStock = async () => (await app.request({ url: '/admin/store', ...admin(owner) })).body.data.stats.lowStockVariants as number;
  const flag = async (id: string) => (await app.ctx.db('productVariants').where({ id }).first('lowStock')).lowStock as boolean;

  t.equal(await lowStock(), 0, `a deny variant at ${LOW_STOCK_THRESHOLD + 1} is not low; a continue variant never is`);
  t.equal(await flag(cont!.id), false);
  const down = await app.request({ method: 'POST', url: url(deny!.id), payload: { delta: -1 }, ...admin(owner) });
  t.equal(down.status, 200, down.raw);
  t.equal(await flag(deny!.id), true, `at ${LOW_STOCK_THRESHOLD} it is`);
  t.equal(await lowStock(), 1);
  const up = await app.request({ method: 'POST', url: url(deny!.id), payload: { quantity: LOW_STOCK_THRESHOLD + 1 }, ...admin(owner) });
  t.equal(up.status, 200, up.raw);
  t.equal(await lowStock(), 0, 'restocked, it is not');

  // Stock moves can be HOT updates (no new index entries, the row version stays on its page) only
  // while no index depends on inventory_quantity, as a column, in an expression or in a predicate.
  const dependent = await app.ctx.db.raw(
    `select i.indexrelid::regclass::text as name
       from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attname = 'inventory_quantity'
      where i.indrelid = 'product_variants'::regclass
        and (a.attnum = any(i.indkey) or pg_get_expr(i.indexprs, i.indrelid) ~ 'inventory_quantity' or pg_get_expr(i.indpred, i.indrelid) ~ 'inventory_quantity')`
  );
  t.same(dependent.rows, [], 'no index of product_variants depends on inventory_quantity');
});
