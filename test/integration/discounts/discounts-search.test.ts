import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { planWithoutSeqScan } from '../../helpers/query-plans.js';

/**
 * GET /admin/discounts?q= (issue #37): a case-insensitive substring of the code, with isActive and
 * cursor pagination; another store's codes never show; a `%` or `_` in q is literal.
 */
t.test('discounts searched by code', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const create = async (who: typeof owner, code: string, isActive = true) => {
    const created = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code, type: 'percentage', value: 10, isActive }, ...admin(who) });
    t.equal(created.status, 201, created.raw);
  };
  await create(owner, 'SUMMER10');
  await create(owner, 'SUMMER20', false);
  await create(owner, 'WINTER5');
  await create(owner, 'TEN_OFF');
  await create(owner, 'TENXOFF');
  await create(other, 'SUMMERX');
  const codes = async (query: string) => {
    const listed = await app.request({ url: `/admin/discounts?${query}`, ...admin(owner) });
    t.equal(listed.status, 200, listed.raw);
    return (listed.body.data.discounts as Array<{ code: string }>).map((d) => d.code.toUpperCase()).sort();
  };
  t.same(await codes('q=summer'), ['SUMMER10', 'SUMMER20'], 'case-insensitive; never another store');
  t.same(await codes('q=mer2'), ['SUMMER20'], 'anywhere in the code');
  t.same(await codes('q=nope'), [], 'no match');
  t.same(await codes('q=summer&isActive=true'), ['SUMMER10'], 'combined with isActive');
  // A code cannot hold a `%` (letters, digits, - and _): as a wildcard it would match every code.
  t.same(await codes(`q=${encodeURIComponent('%')}`), [], '% is literal');
  t.same(await codes(`q=${encodeURIComponent('n_o')}`), ['TEN_OFF'], '_ is literal');
  const first = await app.request({ url: '/admin/discounts?q=summer&limit=1', ...admin(owner) });
  const cursor = first.body.meta.pagination.nextCursor;
  t.ok(cursor, 'a next page');
  const second = await app.request({ url: `/admin/discounts?q=summer&limit=1&cursor=${encodeURIComponent(cursor)}`, ...admin(owner) });
  t.same([first.body.data.discounts[0].code, second.body.data.discounts[0].code].map((c: string) => c.toUpperCase()).sort(), ['SUMMER10', 'SUMMER20'], 'pages through the matches');
  t.equal((await app.request({ url: `/admin/discounts?q=${'x'.repeat(101)}`, ...admin(owner) })).status, 422, 'q is at most 100 characters');
  // The search's expression (services/discounts/discounts.ts) has its trigram index.
  t.match(await planWithoutSeqScan(app, "select id from discounts where lower(code) like '%umme%'"), /discounts_code_trgm_idx/, 'a trigram index serves the search');
});
