import t from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { settled } from '../../helpers/jobs.js';
import { freshMinute, shiftedClock } from '../../helpers/rate-window.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

const subscribe = (app: TestApp, owner: Owner, email: string, ip = '198.51.100.1') =>
  app.request({ method: 'POST', url: '/storefront/newsletter/subscribe', payload: { email }, storefrontToken: owner.storefrontToken, headers: { 'x-forwarded-for': ip } });

const isConfirmMail = (subject: string | undefined) => /Confirm your subscription/.test(subject ?? '');

t.test('a new store confirms sign-ups by email: nobody is subscribed until the emailed link is followed', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app);
  const settings = await app.request({ url: '/admin/store', ...admin(owner) });
  t.equal(settings.body.data.store.newsletterDoubleOptIn, true, 'double opt-in is on for a new store');

  const pending = await subscribe(app, owner, 'fresh@example.com');
  t.equal(pending.status, 200, pending.raw);
  t.same(pending.body.data, { status: 'pending_confirmation', email: 'fresh@example.com' });
  t.notOk(await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'fresh@example.com' }).first(), 'no customer, no consent, before the link');

  const mail = await smtp.waitFor((m) => m.envelopeTo.includes('fresh@example.com') && isConfirmMail(m.parsed.subject));
  const link = new URL(/https?:\/\/\S+newsletter\/confirm\?token=[\w.-]+/.exec(mail.parsed.text ?? '')![0]);
  t.equal((await app.request({ url: `${link.pathname}${link.search}` })).status, 200, 'opening the link (GET) changes nothing');
  t.notOk(await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'fresh@example.com' }).first());

  const confirmed = await app.request({ method: 'POST', url: `${link.pathname}${link.search}` });
  t.equal(confirmed.status, 200, confirmed.raw);
  const customer = await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'fresh@example.com' }).first();
  t.match(customer, { emailMarketing: 'subscribed', emailMarketingSource: 'newsletter_confirmed' });
  await smtp.waitFor((m) => m.envelopeTo.includes('fresh@example.com') && /welcome/i.test(m.parsed.subject ?? ''));

  // The store may turn it off; then a new address subscribes at once, as before.
  t.equal((await app.request({ method: 'PATCH', url: '/admin/store', payload: { newsletterDoubleOptIn: false }, ...admin(owner) })).status, 200);
  t.same((await subscribe(app, owner, 'direct@example.com')).body.data, { subscribed: true, email: 'direct@example.com', emailMarketing: 'subscribed' });
});

t.test('subscribe is rate limited per client address: 429 in the error envelope, other clients unaffected', async (t) => {
  const app = await buildApp(t, { env: { TRUST_PROXY: '1', RATE_LIMIT_NEWSLETTER_PER_IP: '3' } });
  const owner = await signupOwner(app);
  await freshMinute();
  const statuses: number[] = [];
  let limited;
  for (let i = 0; i < 5; i++) {
    const response = await subscribe(app, owner, `reader${i}@example.com`, '198.51.100.20');
    statuses.push(response.status);
    if (response.status === 429) limited = response;
  }
  t.same(statuses, [200, 200, 200, 429, 429], 'three sign-ups a minute from one client');
  t.same(limited!.body, { success: false, error: { code: 'rate_limited', message: 'Too many requests, slow down' }, meta: {} });
  t.ok(Number(limited!.headers['retry-after']) >= 1, 'with Retry-After');
  t.notOk(await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'reader4@example.com' }).first(), 'a refused call changes nothing');
  t.equal((await subscribe(app, owner, 'reader9@example.com', '198.51.100.21')).status, 200, 'another client is not limited');
});

t.test('no burst at a window edge: the limit holds over any minute, and Retry-After is when the next call fits', async (t) => {
  const app = await buildApp(t, { env: { TRUST_PROXY: '1', RATE_LIMIT_NEWSLETTER_PER_IP: '3' } });
  const owner = await signupOwner(app);
  const clock = shiftedClock(t);
  const edge = clock.minuteStart();
  const from = (i: number) => subscribe(app, owner, `edge${i}@example.com`, '198.51.100.30');

  clock.moveTo(edge - 500);
  const before: number[] = [];
  for (let i = 0; i < 3; i++) before.push((await from(i)).status);
  t.same(before, [200, 200, 200], 'three in the last half second of a minute');

  clock.moveTo(edge + 500);
  const after: Array<{ status: number; retryAfter: number }> = [];
  for (let i = 3; i < 6; i++) {
    const response = await from(i);
    after.push({ status: response.status, retryAfter: Number(response.headers['retry-after']) });
  }
  t.same(
    after.map(({ status }) => status),
    [429, 429, 429],
    'none more a second later (a fixed window let three more through)'
  );
  // The last minute's three weigh 3 x (1 - e); a fourth fits once 3 x (1 - e) + 1 <= 3: e = 1/3, 20 s in.
  t.same(
    after.map(({ retryAfter }) => retryAfter),
    [20, 20, 20],
    'Retry-After: twenty seconds, refused calls not counted'
  );

  clock.moveTo(edge + 20_500);
  t.equal((await from(6)).status, 200, 'after the Retry-After, one fits');
  t.equal((await from(7)).status, 429, 'and the next does not');
  t.equal((await subscribe(app, owner, 'elsewhere@example.com', '198.51.100.31')).status, 200, 'another client is not limited');
});

t.test('subscribe is rate limited per address signed up, whatever the client: the mailbox gets a bounded number of confirm links', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url, TRUST_PROXY: '1', RATE_LIMIT_NEWSLETTER_PER_EMAIL: '2' } });
  const owner = await signupOwner(app);
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await subscribe(app, owner, 'target@example.com', `203.0.113.${i + 1}`)).status);
  t.same(statuses, [200, 200, 429, 429], 'two sign-ups of one address an hour, from any client');
  const other = await subscribe(app, owner, 'someone.else@example.com', '203.0.113.1');
  t.equal(other.status, 200, 'another address is not limited');
  const otherStore = await signupOwner(app);
  t.equal((await subscribe(app, otherStore, 'target@example.com', '203.0.113.9')).status, 200, 'nor the same address at another store');

  await smtp.waitFor((m) => m.envelopeTo.includes('someone.else@example.com'));
  await smtp.waitFor(() => smtp.messages.filter((m) => m.envelopeTo.includes('target@example.com')).length >= 3);
  await settled(app, ['email']);
  const toTarget = smtp.messages.filter((m) => m.envelopeTo.includes('target@example.com') && isConfirmMail(m.parsed.subject));
  t.equal(toTarget.length, 3, 'two confirm links from the first store, one from the other; none for the refused calls');
});
