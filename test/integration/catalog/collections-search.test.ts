import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { planWithoutSeqScan } from '../../helpers/query-plans.js';

/**
 * GET /admin/collections?q= (issue #37): a case-insensitive substring of the title or the slug
 * (handle), with the other filters and cursor pagination; another store's collections never show;
 * a `%` in q is a literal percent sign, not a wildcard.
 */
t.test('collections searched by title or slug', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const create = async (who: typeof owner, payload: object) => {
    const created = await app.request({ method: 'POST', url: '/admin/collections', payload, ...admin(who) });
    t.equal(created.status, 201, created.raw);
  };
  await create(owner, { title: 'Summer Hats', slug: 'summer-hats', isPublished: true });
  await create(owner, { title: 'Winter coats', slug: 'cold-weather', isPublished: false });
  await create(owner, { title: 'Summer shoes', slug: 'sandals', isPublished: false });
  await create(owner, { title: '50% off', slug: 'half-price' });
  await create(owner, { title: '50 and more', slug: 'fifty' });
  await create(other, { title: 'Summer elsewhere', slug: 'summer-elsewhere' });
  const titles = async (query: string) => {
    const listed = await app.request({ url: `/admin/collections?${query}`, ...admin(owner) });
    t.equal(listed.status, 200, listed.raw);
    return (listed.body.data.collections as Array<{ title: string }>).map((c) => c.title).sort();
  };
  t.same(await titles('q=SUMMER'), ['Summer Hats', 'Summer shoes'], 'title, case-insensitively; never another store');
  t.same(await titles('q=weather'), ['Winter coats'], 'the slug (handle) matches too');
  t.same(await titles('q=nothing-like-this'), [], 'no match');
  t.same(await titles('q=summer&isPublished=false'), ['Summer shoes'], 'combined with isPublished');
  t.same(await titles(`q=${encodeURIComponent('50%')}`), ['50% off'], '% is literal');
  t.same(await titles(`q=${encodeURIComponent('_0')}`), [], '_ is literal');
  const first = await app.request({ url: '/admin/collections?q=summer&limit=1', ...admin(owner) });
  t.equal(first.body.data.collections.length, 1);
  const cursor = first.body.meta.pagination.nextCursor;
  t.ok(cursor, 'a next page');
  const second = await app.request({ url: `/admin/collections?q=summer&limit=1&cursor=${encodeURIComponent(cursor)}`, ...admin(owner) });
  t.equal(second.body.data.collections.length, 1);
  t.not(second.body.data.collections[0].id, first.body.data.collections[0].id, 'the cursor pages through the matches');
  t.notOk(second.body.meta.pagination.nextCursor, 'and ends with them');
  t.equal((await app.request({ url: `/admin/collections?q=${'x'.repeat(201)}`, ...admin(owner) })).status, 422, 'q is at most 200 characters');
  // The search's expressions (services/catalog/collections.ts) have their trigram index.
  t.match(await planWithoutSeqScan(app, "select id from collections where (lower(title) like '%umme%' or lower(slug) like '%umme%')"), /collections_search_trgm_idx/, 'a trigram index serves the search');
});
