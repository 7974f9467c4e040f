import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { DnsServer } from '../../helpers/dns-server.js';
import { recheckDueDomains } from '../../../src/services/domains/recheck.js';

const TARGET = 'stores.shopwright.test';

t.test('scheduled re-checks: due domains only, each once even with overlapping runs, growing intervals', async (t) => {
  const dns = await new DnsServer().start();
  t.teardown(() => dns.stop());
  const app = await buildApp(t, { workers: false, env: { DNS_SERVERS: dns.address, DOMAIN_TARGET: TARGET, DNS_TIMEOUT_MS: '500' } });

  const owners = await Promise.all(Array.from({ length: 8 }, () => signupOwner(app)));
  const domains = [];
  for (const [i, owner] of owners.entries()) {
    const response = await app.request({ method: 'POST', url: '/admin/store/domain/onboarding-link', payload: { hostname: `shop${i}.example.com` }, token: owner.accessToken, storeId: owner.store.id });
    domains.push(response.body.data.domain);
    if (i % 2 === 0) {
      dns.zone.set(`shop${i}.example.com`, { CNAME: TARGET });
      dns.zone.set(`_shopwright-verify.shop${i}.example.com`, { TXT: [response.body.data.domain.records[1].value] });
    }
  }
  t.ok(new Date(domains[0].nextCheckAt).getTime() > Date.now(), 'the first automatic check is a minute out');
  t.same(await recheckDueDomains(app.ctx), { checked: 0, verified: 0 }, 'nothing due yet');

  await app.ctx.db('storeDomains').update({ nextCheckAt: new Date(Date.now() - 1000) });
  const [a, b] = await Promise.all([recheckDueDomains(app.ctx, { batchSize: 3 }), recheckDueDomains(app.ctx, { batchSize: 3 })]);
  t.equal(a.checked + b.checked, 8, 'overlapping runs check each domain once');
  t.equal(a.verified + b.verified, 4);

  const rows = await app.ctx.db('storeDomains').orderBy('hostname');
  for (const row of rows) {
    if (row.status === 'verified') t.equal(row.nextCheckAt, null);
    else {
      t.equal(row.status, 'failed');
      const delay = new Date(row.nextCheckAt).getTime() - Date.now();
      t.ok(delay > 4 * 60_000 && delay <= 5 * 60_000, `the second re-check of ${row.hostname} is 5 minutes out`);
    }
  }
  await app.ctx.db('storeDomains').where({ status: 'failed' }).update({ nextCheckAt: new Date(Date.now() - 1000) });
  t.same(await recheckDueDomains(app.ctx), { checked: 4, verified: 0 });
  const later = await app.ctx.db('storeDomains').where({ status: 'failed' }).first();
  const delay = new Date(later.nextCheckAt).getTime() - Date.now();
  t.ok(delay > 14 * 60_000 && delay <= 15 * 60_000, 'then 15 minutes: the gaps grow');
  t.equal(later.checkCount, 2);

  await app.startWorkers(['domains']);
  const schedulers = await app.ctx.queues.get('domains').getJobSchedulers();
  t.ok(schedulers.some((s: any) => s.name === 'domain-recheck' || s.key?.includes('domain-recheck')), 'the re-check is a registered schedule');
});
