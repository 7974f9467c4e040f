import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { planWithoutSeqScan } from '../../helpers/query-plans.js';

/**
 * GET /admin/marketing/campaigns?q= (issue #37): a case-insensitive substring of the subject (a
 * campaign has no name of its own), with status/type and cursor pagination; another store's
 * campaigns never show; a `%` in q is literal.
 */
t.test('campaigns searched by subject', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const sendAt = new Date(Date.now() + 3_600_000).toISOString();
  const create = async (who: typeof owner, subject: string) => {
    const as = { token: who.accessToken, storeId: who.store.id };
    const created = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/generic', ...as, payload: { subject, text: 'x', sendAt } });
    t.equal(created.status, 202, created.raw);
  };
  await create(owner, 'Spring sale starts');
  await create(owner, 'Last days of the SPRING sale');
  await create(owner, 'Autumn news');
  await create(owner, '20% off everything');
  await create(owner, '20 new arrivals');
  await create(other, 'Spring elsewhere');
  const subjects = async (query: string) => {
    const listed = await app.request({ url: `/admin/marketing/campaigns?${query}`, token: owner.accessToken, storeId: owner.store.id });
    t.equal(listed.status, 200, listed.raw);
    return (listed.body.data.campaigns as Array<{ subject: string }>).map((c) => c.subject).sort();
  };
  t.same(await subjects('q=spring'), ['Last days of the SPRING sale', 'Spring sale starts'], 'case-insensitive; never another store');
  t.same(await subjects('q=zebra'), [], 'no match');
  t.same(await subjects('q=spring&status=scheduled&type=generic'), ['Last days of the SPRING sale', 'Spring sale starts'], 'combined with status and type');
  t.same(await subjects('q=spring&status=sent'), [], 'the other filters still apply');
  t.same(await subjects(`q=${encodeURIComponent('20%')}`), ['20% off everything'], '% is literal');
  const first = await app.request({ url: '/admin/marketing/campaigns?q=spring&limit=1', token: owner.accessToken, storeId: owner.store.id });
  const cursor = first.body.meta.pagination.nextCursor;
  t.ok(cursor, 'a next page');
  const second = await app.request({ url: `/admin/marketing/campaigns?q=spring&limit=1&cursor=${encodeURIComponent(cursor)}`, token: owner.accessToken, storeId: owner.store.id });
  t.not(second.body.data.campaigns[0].id, first.body.data.campaigns[0].id, 'pages through the matches');
  t.equal((await app.request({ url: `/admin/marketing/campaigns?q=${'x'.repeat(201)}`, token: owner.accessToken, storeId: owner.store.id })).status, 422, 'q is at most 200 characters');
  // The search's expression (services/marketing/campaigns.ts) has its trigram index.
  t.match(await planWithoutSeqScan(app, "select id from campaigns where lower(subject) like '%prin%'"), /campaigns_subject_trgm_idx/, 'a trigram index serves the search');
});
