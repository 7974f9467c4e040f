import t from 'tap';
import { BulkPacer } from '../../../src/platform/bulk-pacing.js';
import { runProductBulk } from '../../../src/services/catalog/bulk.js';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';
import { waitForJob } from '../../helpers/jobs.js';

// Four tests (three with the imports worker, one with its own app), one after another: past tap's 120 s file default on a loaded machine.
t.setTimeout(240_000);

// One app with the imports worker for the file (issue #32: each app costs a cloned database and a
// server), as every test wanted; each signs up its own store, so none sees another's products.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t, { workers: ['imports'] });
});

async function bulk(app: TestApp, owner: Owner, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return app.request({ method: 'POST', url: '/admin/products/bulk', payload, ...admin(owner), headers });
}

async function seed(app: TestApp, owner: Owner, n: number, tag: string) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const product = await createProduct(app, owner, {
      title: `${tag} ${i}`,
      status: 'active',
      tags: [tag],
      variants: [{ price: 1000 + i, inventoryQuantity: 5 }, { price: 2000, sku: `${tag}-${i}-b`, inventoryQuantity: 1 }].slice(0, i % 2 ? 2 : 1)
    });
    ids.push(product.id);
  }
  return ids;
}

t.test('bulk: dryRun counts, a price change and a delete are seen on the storefront, each product changed once', async (t) => {
  const owner = await signupOwner(app);
  const sale = await seed(app, owner, 6, 'sale');
  await seed(app, owner, 2, 'keep');

  const preview = await bulk(app, owner, { filter: { tag: 'sale' }, action: { type: 'changePrice', mode: 'percent', value: -10, rounding: 'ninety_nine' }, dryRun: true });
  t.equal(preview.status, 200);
  t.same(preview.body.data, { dryRun: true, count: 6, job: null });
  t.equal(await app.ctx.db('productVariants').where({ storeId: owner.store.id, price: 999 }).count('* as n').first().then((r) => Number(r!.n)), 0, 'a dry run changes nothing');

  const key = { 'idempotency-key': 'bulk-price-1' };
  const started = await bulk(app, owner, { filter: { tag: 'sale' }, action: { type: 'changePrice', mode: 'percent', value: -10, rounding: 'ninety_nine' } }, key);
  t.equal(started.status, 202);
  const replay = await bulk(app, owner, { filter: { tag: 'sale' }, action: { type: 'changePrice', mode: 'percent', value: -10, rounding: 'ninety_nine' } }, key);
  t.equal(replay.body.data.job.id, started.body.data.job.id, 'the same Idempotency-Key replays the first job, nothing new');
  const job = await waitForJob(app, owner, started.body.data.job.id);
  t.equal(job.status, 'completed', job.error ?? '');
  t.match(job.result, { action: 'changePrice', matched: 6, changed: 6, skipped: 0 });
  // 10.00..10.05 less 10 % -> 9.00..9.05 -> 9.99 (the next price ending in 99); 20.00 -> 18.00 -> 18.99
  const prices = await app.ctx.db('productVariants').whereIn('productId', sale).orderBy('price').distinct('price').pluck('price');
  t.same(prices, [999, 1899]);
  const list = await app.request({ url: '/storefront/products?limit=100', storefrontToken: owner.storefrontToken });
  const onSale = list.body.data.products.filter((p: { title: string }) => p.title.startsWith('sale'));
  t.ok(onSale.length === 6 && onSale.every((p: { priceRange?: { min: number }; minPrice?: number; variants?: Array<{ price: number }> }) => JSON.stringify(p).includes('999')), 'the storefront shows the new prices');

  const removed = await bulk(app, owner, { ids: sale.slice(0, 2), action: { type: 'delete' } });
  const deleted = await waitForJob(app, owner, removed.body.data.job.id);
  t.match(deleted.result, { matched: 2, changed: 2 });
  const after = await app.request({ url: '/storefront/products?limit=100', storefrontToken: owner.storefrontToken });
  t.equal(after.body.data.products.length, 6, 'deleted products are gone from the storefront');
  t.equal((await app.request({ url: `/admin/products/${sale[0]}`, ...admin(owner) })).status, 404);
});

t.test('bulk: tags, collection, status, policy and stock with ledger rows; a collection of another store is 404; a read-only API key is 403', async (t) => {
  const owner = await signupOwner(app);
  const ids = await seed(app, owner, 3, 'b');
  const run = async (action: Record<string, unknown>) => {
    const response = await bulk(app, owner, { ids, action });
    t.equal(response.status, 202, JSON.stringify(response.body));
    return waitForJob(app, owner, response.body.data.job.id);
  };
  await run({ type: 'addTags', tags: ['new', 'B'] });
  const tagged = await app.ctx.db('products').where({ id: ids[0] }).first();
  t.same(tagged.tags, ['b', 'new'], 'a tag already there (any case) is not added twice');
  await run({ type: 'removeTags', tags: ['NEW'] });
  t.same((await app.ctx.db('products').where({ id: ids[0] }).first()).tags, ['b']);
  await run({ type: 'setStatus', status: 'draft' });
  t.equal(await app.ctx.db('products').whereIn('id', ids).where({ status: 'draft' }).count('* as n').first().then((r) => Number(r!.n)), 3);

  const collection = (await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Bulk' }, ...admin(owner) })).body.data.collection;
  await run({ type: 'addToCollection', collectionId: collection.id });
  t.equal(await app.ctx.db('collectionProducts').where({ collectionId: collection.id }).count('* as n').first().then((r) => Number(r!.n)), 3);
  const other = await signupOwner(app);
  const foreign = (await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Theirs' }, ...admin(other) })).body.data.collection;
  t.equal((await bulk(app, owner, { ids, action: { type: 'addToCollection', collectionId: foreign.id } })).status, 404);

  const stock = await run({ type: 'adjustStock', delta: -3 });
  // Variants: 5 (ok -> 2), 5 and 1 (1 cannot go to -2 under deny: that product is skipped for it), 5.
  t.match(stock.result, { skipped: 1 });
  const ledger = await app.ctx.db('inventoryLedger').where({ storeId: owner.store.id, reasonCode: 'bulk' }).select('delta', 'jobId', 'actor');
  t.equal(ledger.length, 3);
  t.ok(ledger.every((l: { delta: number; jobId: string; actor: string }) => l.delta === -3 && l.jobId === stock.id && l.actor === 'job'));
  await run({ type: 'setInventoryPolicy', policy: 'continue' });
  await run({ type: 'setStock', quantity: -1 });
  t.equal(await app.ctx.db('productVariants').whereIn('productId', ids).where({ inventoryQuantity: -1 }).count('* as n').first().then((r) => Number(r!.n)), 4);

  // Catalog rights: an API key with read_products only cannot run bulk edits.
  const key = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: 'ro', scopes: ['read_products'] }, ...admin(owner) });
  const secret = key.body.data.secret;
  const refused = await app.request({ method: 'POST', url: '/admin/products/bulk', payload: { ids, action: { type: 'delete' } }, headers: { authorization: `Bearer ${secret}` } });
  t.equal(refused.status, 403);
  t.equal((await app.request({ method: 'POST', url: '/admin/products/import', payload: 'Handle\n', headers: { authorization: `Bearer ${secret}`, 'content-type': 'text/csv' } })).status, 403);
});

t.test('bulk: each changed product gets its own audit entry (the requester as actor, the diff), in the transaction of the change; the chain verifies', async (t) => {
  const owner = await signupOwner(app);
  const ids = await seed(app, owner, 4, 'aud');
  const entries = async (query: string) => {
    const response = await app.request({ url: `/admin/store/audit-log${query}`, ...admin(owner) });
    t.equal(response.status, 200, response.raw);
    return response.body.data.entries as Array<{ action: string; actor: { type: string; userId: string | null }; resource: { type: string; id: string }; changes: any; requestId: string | null; userAgent: string | null }>;
  };
  const before = (await entries('?action=product.updated&limit=100')).length;

  const started = await bulk(app, owner, { ids: ids.slice(0, 3), action: { type: 'changePrice', mode: 'amount', value: 100 } }, { 'user-agent': 'bulk-audit/1' });
  t.equal(started.status, 202, started.raw);
  const job = await waitForJob(app, owner, started.body.data.job.id);
  t.match(job.result, { changed: 3 });
  const all = await entries('?action=product.updated&limit=100');
  const priced = all.slice(0, all.length - before); // newest first
  t.equal(priced.length, 3, 'one entry per product changed, none for the product left out');
  t.same(priced.map((e) => e.resource.id).sort(), ids.slice(0, 3).sort());
  const first = priced.find((e) => e.resource.id === ids[0])!;
  t.equal(first.actor.type, 'user');
  t.equal(first.actor.userId, owner.user.id, 'the member who asked, not the worker');
  t.equal(first.userAgent, 'bulk-audit/1', 'the request that started the job');
  t.same(first.changes.minPrice, { before: 1000, after: 1100 });
  t.equal(first.changes.variants.after[0].price, first.changes.variants.before[0].price + 100);

  // An action that changes nothing (the status is already active) writes no entry.
  const same = await bulk(app, owner, { ids, action: { type: 'setStatus', status: 'active' } });
  t.match((await waitForJob(app, owner, same.body.data.job.id)).result, { changed: 0 });
  t.equal((await entries('?action=product.updated&limit=100')).length, before + 3);

  const removed = await bulk(app, owner, { ids: [ids[3]], action: { type: 'delete' } });
  await waitForJob(app, owner, removed.body.data.job.id);
  const [deleted] = await entries(`?action=product.deleted&resourceId=${ids[3]}`);
  t.same(deleted!.changes.title, { before: 'aud 3', after: null });
  const verified = await app.request({ url: '/admin/store/audit-log/verify', ...admin(owner) });
  t.match(verified.body.data, { valid: true });
});

t.test('bulk: on a busy machine the job pauses after each batch (BULK_JOB_BUSY_PERCENT), and changes each product once', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const ids = await seed(app, owner, 3, 'paced');
  const started = await bulk(app, owner, { ids, action: { type: 'changePrice', mode: 'set', value: 1234 } });
  t.equal(started.status, 202);
  // A run-queue wait of ten times the time on a CPU after every batch: a machine busy with other work.
  let reading = 0;
  const pauses: number[] = [];
  const pacer = new BulkPacer({ busyPercent: 25, probe: () => ({ runNs: ++reading * 1e6, waitNs: reading * 10e6 }), sleep: async (ms) => void pauses.push(ms) });
  const result = await runProductBulk(app.ctx, started.body.data.job.id, { pacer, batchProducts: 1 });
  t.match(result, { action: 'changePrice', matched: 3, changed: 3 });
  t.equal(pauses.length, 2, 'three batches of one product: a pause after each from the second busy one on');
  t.same(await app.ctx.db('productVariants').whereIn('productId', ids).distinct('price').pluck('price'), [1234]);
});
