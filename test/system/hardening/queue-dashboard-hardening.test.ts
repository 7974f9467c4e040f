import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { ADDRESS, confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

const USER = 'ops';
const PASSWORD = 'queue-dashboard-password-1234567890';
const DASHBOARD_ENV = { QUEUE_DASHBOARD_USER: USER, QUEUE_DASHBOARD_PASSWORD: PASSWORD };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const AUTH = { authorization: basic(USER, PASSWORD) };

/** The dashboard is outside /api/v1: straight through server.inject. */
async function get(app: TestApp, url: string, headers: Record<string, string> = AUTH) {
  const response = await app.server.inject({ method: 'GET', url, headers });
  return { status: response.statusCode, headers: response.headers, raw: response.payload };
}

/** Rate limits count in fixed one-minute windows: start a sequence early in one, so it does not straddle two. */
async function freshWindow() {
  const intoMinute = (Date.now() / 1000) % 60;
  if (intoMinute > 45) await new Promise((resolve) => setTimeout(resolve, (60 - intoMinute) * 1000 + 50));
}

/** An address in any form a reader would recognise (a masked `j***@example.com` is not one). */
const ANY_EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;

t.test('brute force on the dashboard: 429 after the login limits, even the right password from that address; elsewhere it works', async (t) => {
  const app = await buildApp(t, { env: { ...DASHBOARD_ENV, TRUST_PROXY: '1', RATE_LIMIT_AUTH_PER_EMAIL: '3', RATE_LIMIT_AUTH_PER_EMAIL_CEILING: '8' } });
  const from = (ip: string, authorization: string) => get(app, '/admin/queues/api/queues', { authorization, 'x-forwarded-for': ip });
  await freshWindow();

  // The operator's own requests (every poll carries the credentials) never count.
  for (let i = 0; i < 10; i++) t.equal((await from('198.51.100.10', AUTH.authorization)).status, 200);
  t.equal((await get(app, '/admin/queues', { 'x-forwarded-for': '198.51.100.10' })).status, 401, 'no credentials: asked for them');

  const guesses: number[] = [];
  while (guesses.length < 7 && !guesses.includes(429)) guesses.push((await from('198.51.100.66', basic(USER, `guess-${guesses.length}`))).status);
  t.same(guesses, [401, 401, 401, 429], 'three wrong passwords from one address, then 429');
  const locked = await from('198.51.100.66', AUTH.authorization);
  t.equal(locked.status, 429, 'locked out: even the right password, from that address');
  t.equal(JSON.parse(locked.raw).error.code, 'rate_limited');
  t.ok(Number(locked.headers['retry-after']) >= 1, 'with Retry-After');
  t.equal((await from('203.0.113.5', AUTH.authorization)).status, 200, 'the operator elsewhere is not locked out');

  // Across addresses, the per-user ceiling (8) locks the user name everywhere.
  const spread: number[] = [];
  for (let i = 0; i < 10 && !spread.includes(429); i++) spread.push((await from(`192.0.2.${i + 1}`, basic(USER, 'spread-guess'))).status);
  t.ok(spread.includes(429), `the ceiling is reached: ${spread.join(',')}`);
  t.equal((await from('192.0.2.200', AUTH.authorization)).status, 429, 'then the user name is locked from a fresh address too');
});

t.test('brute force per address: wrong user names from one client are limited too', async (t) => {
  const app = await buildApp(t, { env: { ...DASHBOARD_ENV, TRUST_PROXY: '1', RATE_LIMIT_AUTH_PER_IP: '3' } });
  await freshWindow();
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await get(app, '/admin/queues', { authorization: basic(`user${i}`, 'x'), 'x-forwarded-for': '198.51.100.7' })).status);
  t.same(statuses, [401, 401, 401, 429, 429]);
  t.equal((await get(app, '/admin/queues', { ...AUTH, 'x-forwarded-for': '198.51.100.8' })).status, 200, 'another client is not');
});

t.test('the dashboard shows no customer emails or names in job data, results, logs or failures', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { env: { ...DASHBOARD_ENV, SMTP_URL: smtp.url } });
  const owner = await signupOwner(app, { firstName: 'Olympia' });

  // Real jobs that carried addresses and names: a newsletter sign-up, a forgot-password request,
  // a team invite and an order confirmation.
  await setupShop(app, owner, { newsletterDoubleOptIn: false });
  const subscribed = await app.request({ method: 'POST', url: '/storefront/newsletter/subscribe', payload: { email: 'janet.subscriber@example.com', firstName: 'Janetta' }, storefrontToken: owner.storefrontToken });
  t.equal(subscribed.status, 200, subscribed.raw);
  t.equal((await app.request({ method: 'POST', url: '/auth/forgot-password', payload: { email: owner.email } })).status, 200);
  const invited = await app.request({ method: 'POST', url: '/admin/store/team/invites', payload: { email: 'invited.person@example.com', role: 'staff' }, ...admin(owner) });
  t.equal(invited.status, 201, invited.raw);
  const product = await sellable(app, owner, 'Kettle', [{ price: 3000, stock: 3 }]);
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }], { email: 'buyer.person@example.com' });
  t.equal((await confirm(app, owner, session.body.data.checkoutSession.id)).status, 200);
  await app.ctx.outbox.drain();

  const personal = ['janet.subscriber@example.com', 'Janetta', owner.email, 'Olympia', 'invited.person@example.com', 'buyer.person@example.com', ADDRESS.lastName, ADDRESS.line1];
  const assertClean = (raw: string, what: string) => {
    for (const value of personal) t.notOk(raw.includes(value), `${what}: no ${value}`);
    t.notMatch(raw, ANY_EMAIL, `${what}: no address at all`);
  };
  const email = app.ctx.queues.get('email');
  const queued = await email.getJobs(['waiting', 'prioritized', 'delayed']);
  t.equal(queued.length, 4, 'the four jobs are queued');
  const list = await get(app, '/admin/queues/api/queues?activeQueue=email&status=latest&page=1');
  t.equal(list.status, 200, list.raw.slice(0, 300));
  t.equal(JSON.parse(list.raw).queues.find((q: { name: string }) => q.name === 'email').jobs.length, 4, 'the dashboard lists them');
  assertClean(list.raw, 'the queue listing');
  for (const job of queued) assertClean((await get(app, `/admin/queues/api/queues/email/${job.id}`)).raw, `job ${job.name}`);
  // Not only hidden from the dashboard: Redis holds ids and sealed text.
  for (const job of queued) assertClean(JSON.stringify(job.data), `${job.name} payload in Redis`);

  // Delivered, with everything the sealed payloads carried, and the results name no one either.
  await app.startWorkers(['email']);
  for (const address of ['janet.subscriber@example.com', owner.email, 'invited.person@example.com', 'buyer.person@example.com']) {
    await smtp.waitFor((m) => m.envelopeTo.includes(address));
  }
  t.match(smtp.messages.find((m) => m.envelopeTo.includes(owner.email))!.parsed.text, /reset-password\?token=/);
  t.match(smtp.messages.find((m) => m.envelopeTo.includes('invited.person@example.com'))!.parsed.text, /accept-invite\?token=/);
  t.match(smtp.messages.find((m) => m.envelopeTo.includes('janet.subscriber@example.com'))!.raw, /List-Unsubscribe:\s+<http:/);
  for (let i = 0; i < 100 && (await email.getCompletedCount()) < 4; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  const completed = await get(app, '/admin/queues/api/queues?activeQueue=email&status=completed&page=1');
  t.equal(JSON.parse(completed.raw).queues.find((q: { name: string }) => q.name === 'email').jobs.length, 4, 'the four jobs completed (the reset request sends its email itself)');
  assertClean(completed.raw, 'completed jobs with their results');
});

t.test('second line: a job queued with an address in its data, its logs or its failure shows it masked', async (t) => {
  const app = await buildApp(t, { env: DASHBOARD_ENV });
  const legacy = await app.ctx.queues.get('maintenance').add('legacy-shaped', {
    to: 'legacy.recipient@example.com',
    data: { customer: { firstName: 'Leonora', email: 'leonora@example.com' }, note: 'reply to leonora.note@example.com' }
  });
  await legacy.log('delivered to leonora.log@example.com');

  // A job that failed with an SMTP-style refusal naming its recipient.
  const queue = app.ctx.queues.get('sync');
  await queue.add('refused', { storeId: randomUUID() });
  const worker = app.ctx.backends.queue.worker('sync', null, {});
  t.teardown(() => worker.close());
  const token = 'test-token';
  const active = await worker.getNextJob(token);
  await active!.moveToFailed(new Error('550 5.1.1 <refused.recipient@example.com>: Recipient address rejected'), token);

  const job = JSON.parse((await get(app, `/admin/queues/api/queues/maintenance/${legacy.id}`)).raw).job;
  t.equal(job.data.to, '[redacted]');
  t.equal(job.data.data.customer, '[redacted]');
  t.equal(job.data.data.note, 'reply to l***@example.com', 'addresses in free text are masked');
  const logs = await get(app, `/admin/queues/api/queues/maintenance/${legacy.id}/logs`);
  t.equal(logs.status, 200, logs.raw);
  t.match(logs.raw, /delivered to l\*\*\*@example\.com/);
  const failed = await get(app, `/admin/queues/api/queues/sync/${active!.id}`);
  t.match(JSON.parse(failed.raw).job.failedReason, /<r\*\*\*@example\.com>: Recipient address rejected/);
  for (const raw of [JSON.stringify(job), logs.raw, failed.raw, (await get(app, '/admin/queues/api/queues?activeQueue=maintenance&status=latest&page=1')).raw]) {
    t.notMatch(raw, ANY_EMAIL);
    t.notOk(raw.includes('Leonora'));
  }
});

/**
 * URLs in the bundles that load nothing: XML namespaces, JSON-schema ids, links to docs and error
 * pages in messages, URL-parsing bases. A fetch, font or stylesheet host among them fails the test.
 */
const NOT_LOADED = new Set([
  'www.w3.org', 'json-schema.org', 'react.dev', 'reactjs.org', 'fb.me', 'redux.js.org', 'redux-toolkit.js.org', 'bit.ly',
  'github.com', 'felixmosh.github.io', 'reactflow.dev', 'base-ui.com', 'react.i18next.com', 'localhost', 'fake.com'
]);

t.test('the dashboard page and every asset it can load reference no other origin, under a CSP that forbids them', async (t) => {
  const app = await buildApp(t, { env: DASHBOARD_ENV });
  const page = await get(app, '/admin/queues');
  t.equal(page.status, 200);
  const csp = String(page.headers['content-security-policy']);
  t.match(csp, /default-src 'self'/);
  for (const directive of ['script-src', 'style-src', 'font-src', 'connect-src', 'img-src']) t.match(csp, new RegExp(`${directive} 'self'`), directive);
  t.notMatch(csp, /https?:|\*/, 'no other origin allowed');
  t.notMatch(page.raw, /(?:href|src)=["']?(?:[a-z]+:)?\/\//i, 'no external link or script in the page');
  t.notMatch(page.raw, /fonts\.googleapis|fonts\.gstatic/);
  t.match(page.raw, /static\/js\/main\.[\w]+\.js/, 'the page still loads its own scripts');
  const denied = await get(app, '/admin/queues', {});
  t.equal(denied.status, 401);
  t.match(String(denied.headers['content-security-policy']), /default-src 'self'/, 'on errors too');

  // Every file the board can serve: what the page links and every chunk, stylesheet and locale.
  const staticDir = path.join(path.dirname(createRequire(import.meta.url).resolve('@bull-board/ui/package.json')), 'dist', 'static');
  const files = (await readdir(staticDir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => path.relative(staticDir, path.join(entry.parentPath, entry.name)));
  const linked = [...page.raw.matchAll(/(?:href|src)="(static\/[^"]+)"/g)].map((m) => m[1]!.slice('static/'.length));
  t.ok(linked.length >= 4, `the page links its assets: ${linked.join(', ')}`);
  for (const file of linked) t.ok(files.includes(file), `${file} is one of the board's files`);
  const urls = new Set<string>();
  for (const file of files.filter((f) => /\.(css|js|json|svg)$/.test(f))) {
    const asset = await get(app, `/admin/queues/static/${file.split(path.sep).join('/')}`);
    t.equal(asset.status, 200, file);
    t.match(String(asset.headers['content-security-policy']), /default-src 'self'/);
    if (file.endsWith('.css')) {
      t.notMatch(asset.raw, /url\(\s*["']?(?:[a-z]+:)?\/\//i, `${file}: no external url()`);
      t.notMatch(asset.raw, /@import/i, `${file}: no @import`);
    }
    for (const [url] of asset.raw.matchAll(/https?:\/\/[A-Za-z0-9.-]*/g)) urls.add(url);
  }
  const loaded = [...urls].filter((url) => url.replace(/^https?:\/\//, '') !== '' && !NOT_LOADED.has(url.replace(/^https?:\/\//, '')));
  t.same(loaded, [], 'no URL in the assets points at a host they could load from');
});

t.test('an email job queued before payloads were sealed (address and data in the clear) still delivers', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { env: { SMTP_URL: smtp.url }, workers: ['email'] });
  const emailLogId = randomUUID();
  await app.ctx.db('emailLog').insert({ id: emailLogId, storeId: null, toEmail: 'old.payload@example.com', templateKey: 'password_reset', status: 'queued' });
  await app.ctx.queues.get('email').add('send-email', {
    emailLogId,
    storeId: null,
    to: 'old.payload@example.com',
    templateKey: 'password_reset',
    data: { user: { firstName: 'Old' }, resetUrl: 'http://admin.test/reset-password?token=legacy', expiresInMinutes: 60 }
  }, { jobId: emailLogId });
  const mail = await smtp.waitFor((m) => m.envelopeTo.includes('old.payload@example.com'));
  t.match(mail.parsed.text, /reset-password\?token=legacy/);
});
