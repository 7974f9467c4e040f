import t from 'tap';
import { addMember, buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { DnsServer } from '../../helpers/dns-server.js';
import { waitForJob } from '../../helpers/jobs.js';
import { signRequest } from '../../../src/platform/signed-requests.js';

const TARGET = 'stores.shopwright.test';
const SECRET = 'hosted-domain-test-secret-0123456789abcdef';

async function onboard(app: TestApp, owner: Owner, hostname: string) {
  return app.request({ method: 'POST', url: '/admin/store/domain/onboarding-link', payload: { hostname }, token: owner.accessToken, storeId: owner.store.id });
}

async function check(app: TestApp, owner: Owner) {
  const response = await app.request({ method: 'POST', url: '/admin/store/domain/check', token: owner.accessToken, storeId: owner.store.id });
  if (response.status !== 202) throw new Error(`check refused: ${response.status} ${response.raw}`);
  const job = await waitForJob(app, owner, response.body.data.job.id);
  const domain = await app.request({ url: '/admin/store/domain', token: owner.accessToken, storeId: owner.store.id });
  return { response, job, domain: domain.body.data.domain };
}

t.test('custom domains: onboarding records, DNS job verified / missing / wrong / timeout, claimed hostnames', async (t) => {
  const dns = await new DnsServer().start();
  t.teardown(() => dns.stop());
  const app = await buildApp(t, { workers: ['domains'], env: { DNS_SERVERS: dns.address, DOMAIN_TARGET: TARGET, DNS_TIMEOUT_MS: '300' } });
  const owner = await signupOwner(app);

  for (const bad of ['localhost', '10.0.0.1', 'bad_host.example.com', '-x.example.com', `shop.${TARGET}`, '']) {
    const refused = await onboard(app, owner, bad);
    t.equal(refused.status, 422, `${JSON.stringify(bad)} refused`);
    t.equal(refused.body.error.code, 'validation_failed');
  }

  const noDomain = await app.request({ method: 'POST', url: '/admin/store/domain/check', token: owner.accessToken, storeId: owner.store.id });
  t.equal(noDomain.status, 404, 'nothing to check before onboarding');

  const started = await onboard(app, owner, 'Shop.Example.COM');
  t.equal(started.status, 200, started.raw);
  const domain = started.body.data.domain;
  t.match(domain, { hostname: 'shop.example.com', status: 'pending' });
  t.ok(domain.onboardingUrl);
  const cname = domain.records.find((r: any) => r.type === 'CNAME');
  const txt = domain.records.find((r: any) => r.type === 'TXT');
  t.same(cname, { type: 'CNAME', name: 'shop.example.com', value: TARGET });
  t.match(txt, { type: 'TXT', name: '_shopwright-verify.shop.example.com' });
  t.ok(txt.value.length > 20, 'an ownership token');
  const again = await onboard(app, owner, 'shop.example.com');
  t.equal(again.body.data.domain.records[1].value, txt.value, 'asking again keeps the token');

  // Missing records.
  const missing = await check(app, owner);
  t.match(missing.response.body.data, { domain: { hostname: 'shop.example.com' }, job: { status: 'queued' } });
  t.equal(missing.job.status, 'completed');
  t.equal(missing.domain.status, 'failed');
  t.same(missing.domain.failures.map((f: any) => [f.type, f.reason]), [['CNAME', 'missing'], ['TXT', 'missing']]);

  const issues = await app.request({ url: '/admin/store/issues', token: owner.accessToken, storeId: owner.store.id });
  t.match(issues.body.data.issues, [{ kind: 'dns_failed', severity: 'warning', occurrences: 1 }], 'a DNS failure raises an issue');
  t.match(issues.body.data.issues[0].detail, /No CNAME record found at shop\.example\.com/);

  // CNAME right, TXT wrong.
  dns.zone.set('shop.example.com', { CNAME: TARGET });
  dns.zone.set('_shopwright-verify.shop.example.com', { TXT: ['shopwright-verification=not-the-token'] });
  const wrong = await check(app, owner);
  t.equal(wrong.domain.status, 'failed');
  t.equal(wrong.domain.failures.length, 1, 'only the wrong record is named');
  t.match(wrong.domain.failures[0], { type: 'TXT', reason: 'wrong', found: ['shopwright-verification=not-the-token'], expected: txt.value });

  // CNAME pointing elsewhere.
  dns.zone.set('shop.example.com', { CNAME: 'elsewhere.example.net' });
  dns.zone.set('_shopwright-verify.shop.example.com', { TXT: [txt.value] });
  const wrongCname = await check(app, owner);
  t.match(wrongCname.domain.failures, [{ type: 'CNAME', reason: 'wrong', found: ['elsewhere.example.net'] }]);

  // A resolver that never answers.
  dns.zone.set('shop.example.com', { silent: true });
  const timedOut = await check(app, owner);
  t.equal(timedOut.domain.status, 'failed');
  t.match(timedOut.domain.failures, [{ type: 'CNAME', reason: 'timeout' }]);

  // Both right.
  dns.zone.set('shop.example.com', { CNAME: `${TARGET}.` });
  const verified = await check(app, owner);
  t.equal(verified.domain.status, 'verified');
  t.same(verified.domain.failures, []);
  t.ok(verified.domain.verifiedAt);
  t.equal(verified.domain.nextCheckAt, null, 'a verified domain needs no re-check');
  const open = await app.request({ url: '/admin/store/issues?status=open', token: owner.accessToken, storeId: owner.store.id });
  t.same(open.body.data.issues, [], 'fixed records resolve the DNS issue');
  const resolved = await app.request({ url: '/admin/store/issues?status=resolved', token: owner.accessToken, storeId: owner.store.id });
  t.match(resolved.body.data.issues, [{ kind: 'dns_failed', occurrences: 4 }], 'each failed check counted once on the same issue');
  const dashboard = await app.request({ url: '/admin/store', token: owner.accessToken, storeId: owner.store.id });
  t.equal(dashboard.body.data.setup.domainVerified, true);
  t.equal(dashboard.body.data.setup.domainConnected, true, 'the console knows to ask for the domain');

  // Another store cannot claim the hostname.
  const other = await signupOwner(app);
  const claimed = await onboard(app, other, 'SHOP.example.com');
  t.equal(claimed.status, 409);
  const racing = await Promise.all([onboard(app, other, 'race.example.org'), onboard(app, await signupOwner(app), 'race.example.org')]);
  t.same(racing.map((r) => r.status).sort(), [200, 409], 'two stores racing for one hostname: one wins');

  // Staff may not manage domains.
  const staff = await addMember(app, owner.store.id, 'staff');
  const byStaff = await app.request({ method: 'POST', url: '/admin/store/domain/onboarding-link', payload: { hostname: 'x.example.com' }, token: staff.accessToken, storeId: owner.store.id });
  t.equal(byStaff.status, 403);
});

t.test('hosted-domain webhook: right, wrong, stale and replayed signatures', async (t) => {
  const app = await buildApp(t, { workers: false, env: { HOSTED_DOMAIN_WEBHOOK_SECRET: SECRET, DOMAIN_TARGET: TARGET } });
  const owner = await signupOwner(app);
  t.equal((await onboard(app, owner, 'live.example.com')).status, 200);

  const send = (body: string, timestamp: number | string, signature: string) =>
    app.request({
      method: 'POST',
      url: '/internal/webhooks/hosted-domain',
      payload: body,
      headers: { 'content-type': 'application/json', 'x-webhook-timestamp': String(timestamp), 'x-webhook-signature': signature }
    });
  const now = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ hostname: 'live.example.com', event: 'certificate.issued' });

  const wrong = await send(body, now, signRequest('not-the-secret', now, body));
  t.equal(wrong.status, 400);
  t.equal(wrong.body.error.code, 'bad_request');
  const tampered = await send(body.replace('live', 'evil'), now, signRequest(SECRET, now, body));
  t.equal(tampered.status, 400, 'the signature covers the body');
  const stale = await send(body, now - 301, signRequest(SECRET, now - 301, body));
  t.equal(stale.status, 400, 'older than 5 minutes');
  // Well past the tolerance: `now` is a whole second and the server reads its clock later (a
  // stamp 301 s ahead was inside 300 s once a second had passed on a busy machine).
  const future = await send(body, now + 330, signRequest(SECRET, now + 330, body));
  t.equal(future.status, 400, 'more than 5 minutes ahead');
  const unsigned = await app.request({ method: 'POST', url: '/internal/webhooks/hosted-domain', payload: body, headers: { 'content-type': 'application/json' } });
  t.equal(unsigned.status, 400);
  t.equal((await app.ctx.db('storeDomains').where({ storeId: owner.store.id }).first()).status, 'pending', 'nothing applied yet');

  const signature = signRequest(SECRET, now - 60, body);
  const accepted = await send(body, now - 60, signature);
  t.equal(accepted.status, 200, accepted.raw);
  t.same(accepted.body.data, { received: true, applied: true });
  const domain = await app.request({ url: '/admin/store/domain', token: owner.accessToken, storeId: owner.store.id });
  t.equal(domain.body.data.domain.status, 'active');
  t.ok(domain.body.data.domain.activatedAt);

  const replayed = await send(body, now - 60, signature);
  t.equal(replayed.status, 400, 'the same delivery twice is refused');
  t.match(replayed.body.error.message, /replay/);

  const other = JSON.stringify({ hostname: 'unknown.example.com', event: 'certificate.issued' });
  const unknown = await send(other, now, signRequest(SECRET, now, other));
  t.same(unknown.body.data, { received: true, applied: false });
  const notJson = await send('nope', now, signRequest(SECRET, now, 'nope'));
  t.equal(notJson.status, 400);
  const ping = JSON.stringify({ event: 'ping' });
  const pinged = await send(ping, now, signRequest(SECRET, now, ping));
  t.equal(pinged.status, 200, 'a signed delivery about no domain is acknowledged, not refused');
  t.same(pinged.body.data, { received: true, applied: false });

  // Other shapes providers use: millisecond timestamps, an event envelope, a status that is not "issued".
  const second = await signupOwner(app);
  t.equal((await onboard(app, second, 'second.example.com')).status, 200);
  const pending = JSON.stringify({ type: 'certificate.pending', data: { hostname: 'second.example.com' } });
  const pendingMs = Date.now();
  t.same((await send(pending, pendingMs, signRequest(SECRET, pendingMs, pending))).body.data, { received: true, applied: false });
  const issued = JSON.stringify({ type: 'certificate.issued', data: { hostname: 'Second.Example.com' } });
  const issuedMs = Date.now() + 1;
  const applied = await send(issued, issuedMs, signRequest(SECRET, issuedMs, issued));
  t.same(applied.body.data, { received: true, applied: true }, applied.raw);
  t.equal((await app.ctx.db('storeDomains').where({ storeId: second.store.id }).first()).status, 'active');
  const noHost = JSON.stringify({ event: 'certificate.issued' });
  t.same((await send(noHost, now, signRequest(SECRET, now, noHost))).body.data, { received: true, applied: false }, 'no hostname: nothing to apply');

  // A sync saying the provider verified the records moves a pending domain to verified, never an active one back.
  const third = await signupOwner(app);
  t.equal((await onboard(app, third, 'third.example.com')).status, 200);
  const verified = JSON.stringify({ hostname: 'third.example.com', status: 'verified' });
  const verifiedMs = Date.now() + 2;
  t.same((await send(verified, verifiedMs, signRequest(SECRET, verifiedMs, verified))).body.data, { received: true, applied: true });
  const thirdDomain = await app.ctx.db('storeDomains').where({ storeId: third.store.id }).first();
  t.equal(thirdDomain.status, 'verified');
  t.ok(thirdDomain.verifiedAt);
  const again = JSON.stringify({ hostname: 'second.example.com', status: 'verified' });
  const againMs = Date.now() + 3;
  t.same((await send(again, againMs, signRequest(SECRET, againMs, again))).body.data, { received: true, applied: false });
  t.equal((await app.ctx.db('storeDomains').where({ storeId: second.store.id }).first()).status, 'active', 'an active domain stays active');
});
