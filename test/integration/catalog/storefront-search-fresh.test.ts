import t from 'tap';
import type { TestApp } from '../../helpers/app.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';

/**
 * Search rows that differ from what products say right now (should always be none): an active
 * product without its row or with other values, a row for a product that is not active.
 */
async function laggingSearchRows(app: TestApp): Promise<string[]> {
  const result = await app.ctx.db.raw(
    `select coalesce(p.id, s.id) as id
       from (select id, store_id, search from products where status = 'active') p
       full join storefront_search s on s.id = p.id
      where (p.id, p.store_id, p.search) is distinct from (s.id, s.store_id, s.search)`
  );
  return result.rows.map((row: { id: string }) => row.id);
}

t.test('the search table never lags a product write, whoever writes it', async (t) => {
  const app = await buildApp(t, { env: { STOREFRONT_CACHE_TTL_MS: '0' } });
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  // A relevance search (the default with q) is what reads the search rows; sorted titles.
  const titles = async (q: string, who = owner) => {
    const response = await app.request({ url: `/storefront/products?${new URLSearchParams({ q })}`, storefrontToken: who.storefrontToken });
    t.equal(response.status, 200, response.raw);
    return response.body.data.products.map((p: { title: string }) => p.title).sort();
  };
  const check = async (label: string) => t.same(await laggingSearchRows(app), [], `${label}: the search table matches products`);

  const shirt = await createProduct(app, owner, { title: 'Linen Shirt', status: 'active', tags: ['summer'], variants: [{ price: 3000, inventoryQuantity: 1 }] });
  const draft = await createProduct(app, owner, { title: 'Linen Draft', status: 'draft', variants: [{ price: 1000 }] });
  await createProduct(app, other, { title: 'Linen Elsewhere', status: 'active', variants: [{ price: 1000 }] });
  await check('created');
  t.same(await titles('linen'), ['Linen Shirt'], 'a draft is not found, nor another store');
  t.same(await titles('linen', other), ['Linen Elsewhere']);

  const patch = (id: string, payload: Record<string, unknown>) => app.request({ method: 'PATCH', url: `/admin/products/${id}`, payload, ...admin(owner) });
  t.equal((await patch(shirt.id, { title: 'Hemp Shirt' })).status, 200);
  await check('title changed');
  t.same(await titles('linen'), [], 'the old title no longer matches');
  t.same(await titles('hemp'), ['Hemp Shirt']);
  t.equal((await patch(shirt.id, { description: 'Woven from cedarwood fibres' })).status, 200);
  await check('description changed');
  t.same(await titles('cedarwood'), ['Hemp Shirt']);
  t.equal((await patch(shirt.id, { tags: ['beachwear'] })).status, 200);
  await check('tags changed');
  t.same(await titles('beachwear'), ['Hemp Shirt']);
  t.same(await titles('summer'), []);
  t.equal((await patch(shirt.id, { variants: [{ id: shirt.variants[0].id, price: 1500 }] })).status, 200);
  await check('price changed');
  t.same(await titles('hemp'), ['Hemp Shirt']);

  const status = (id: string, value: string) => app.request({ method: 'PATCH', url: `/admin/products/${id}/status`, payload: { status: value }, ...admin(owner) });
  t.equal((await status(shirt.id, 'draft')).status, 200);
  await check('unpublished to draft');
  t.same(await titles('hemp'), []);
  t.equal((await status(shirt.id, 'active')).status, 200);
  await check('published again');
  t.same(await titles('hemp'), ['Hemp Shirt']);
  t.equal((await status(shirt.id, 'archived')).status, 200);
  await check('archived');
  t.same(await titles('hemp'), []);
  t.equal((await status(draft.id, 'active')).status, 200);
  await check('draft published');
  t.same(await titles('linen'), ['Linen Draft']);

  // Writers that bypass the catalog services: a bulk insert, an update and a delete in SQL.
  await app.ctx.db.raw(
    `insert into products (store_id, title, slug, status, tags) select ?, 'Bulk Linen ' || g, 'bulk-' || g, (array['active','draft'])[1 + g % 2], '{}'
       from generate_series(1, 6) g`,
    [owner.store.id]
  );
  await check('bulk insert in SQL');
  t.same(await titles('bulk'), ['Bulk Linen 2', 'Bulk Linen 4', 'Bulk Linen 6'], 'only the active ones are found');
  await app.ctx.db.raw(`update products set status = case status when 'active' then 'draft' else 'active' end where store_id = ? and slug like 'bulk-%'`, [owner.store.id]);
  await check('bulk status flip in SQL');
  t.same(await titles('bulk'), ['Bulk Linen 1', 'Bulk Linen 3', 'Bulk Linen 5']);
  await app.ctx.db.raw(`update products set title = 'Cotton ' || title, updated_at = now() where store_id = ? and slug like 'bulk-%'`, [owner.store.id]);
  await check('bulk retitle in SQL');
  t.same(await titles('cotton bulk'), ['Cotton Bulk Linen 1', 'Cotton Bulk Linen 3', 'Cotton Bulk Linen 5']);
  await app.ctx.db.raw(`update products set updated_at = now() where id = ?`, [draft.id]);
  await check('an update that changes nothing searched');
  await app.ctx.db('products').where({ id: draft.id }).delete();
  await check('deleted');
  t.same(await titles('linen draft'), []);
  // A rolled-back write leaves nothing behind.
  await app.ctx.db
    .transaction(async (trx) => {
      await trx('products').where({ storeId: owner.store.id }).update({ title: 'Rolled back' });
      throw new Error('roll back');
    })
    .catch(() => undefined);
  await check('rolled back');
  t.same(await titles('rolled'), []);
});
