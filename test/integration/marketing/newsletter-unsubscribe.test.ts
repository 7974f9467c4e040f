import t from 'tap';
import { unsubscribeTokenFor } from '../../../src/services/customers/unsubscribe.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { settled } from '../../helpers/jobs.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

t.test('newsletter subscribe sends one welcome email whose one-click unsubscribe works', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app);
  // A store that turned double opt-in off (new stores have it on): a new address subscribes at once.
  t.equal((await app.request({ method: 'PATCH', url: '/admin/store', payload: { newsletterDoubleOptIn: false }, token: owner.accessToken, storeId: owner.store.id })).status, 200);
  const subscribe = (payload: unknown) =>
    app.request({ method: 'POST', url: '/storefront/newsletter/subscribe', payload, storefrontToken: owner.storefrontToken });

  const first = await subscribe({ email: ' Jane@Example.com ', firstName: 'Jane' });
  t.equal(first.status, 200);
  t.same(first.body.data, { subscribed: true, email: 'jane@example.com', emailMarketing: 'subscribed' });
  const second = await subscribe({ email: 'jane@example.com' });
  t.equal(second.status, 200);
  t.same(second.body.data, first.body.data, 'idempotent');
  t.equal((await subscribe({ email: 'nope' })).status, 422);
  t.equal((await subscribe({ email: 'a@example.com', admin: true })).status, 422);
  t.equal((await app.request({ method: 'POST', url: '/storefront/newsletter/subscribe', payload: { email: 'a@example.com' } })).status, 401);

  const customer = await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'jane@example.com' }).first();
  t.match(customer, { emailMarketing: 'subscribed', emailMarketingSource: 'newsletter', firstName: 'Jane', source: 'newsletter' });
  t.ok(customer.emailMarketingUpdatedAt instanceof Date, 'consent time');
  t.ok(customer.emailMarketingIp, 'consent IP');

  const mail = await smtp.waitFor((m) => m.envelopeTo.includes('jane@example.com'));
  t.match(mail.parsed.subject, owner.store.name);
  t.match(mail.parsed.text, /Thanks for subscribing/);
  const rawHeaders = mail.raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  const header = (name: string) => rawHeaders.split(/\r?\n/).find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.slice(name.length + 1).trim();
  const listUnsubscribe = String(header('List-Unsubscribe'));
  t.match(listUnsubscribe, /^<http:\/\/shop\.test\/api\/v1\/public\/unsubscribe\?token=[\w-]+\.[\w-]+>$/);
  t.equal(header('List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
  t.notMatch(listUnsubscribe, /jane/i, 'the token carries no readable email');
  const url = new URL(listUnsubscribe.slice(1, -1));
  t.match(mail.parsed.text, url.toString(), 'the body links the same URL');
  await settled(app, ['email']);
  t.equal(smtp.messages.filter((m) => m.envelopeTo.includes('jane@example.com')).length, 1, 'no second welcome email');

  // GET describes and changes nothing (mail scanners follow links).
  const described = await app.request({ url: `${url.pathname}${url.search}` });
  t.equal(described.status, 200);
  t.same(described.body.data, { email: 'j***@example.com', emailMarketing: 'subscribed', store: { name: owner.store.name } });
  t.equal((await app.ctx.db('customers').where({ id: customer.id }).first()).emailMarketing, 'subscribed');

  // RFC 8058 one-click POST, twice.
  for (let i = 0; i < 2; i++) {
    const oneClick = await app.request({
      method: 'POST',
      url: `${url.pathname}${url.search}`,
      payload: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' }
    });
    t.equal(oneClick.status, 200, oneClick.raw);
    t.same(oneClick.body.data, { unsubscribed: true, email: 'j***@example.com' });
    t.notOk(oneClick.headers.location, 'no redirect');
  }
  const after = await app.ctx.db('customers').where({ id: customer.id }).first();
  t.match(after, { emailMarketing: 'unsubscribed', emailMarketingSource: 'unsubscribe_link' });

  // An unsubscribe is honoured by a send queued before it.
  const { enqueueEmail } = await import('../../../src/services/email/outbox.js');
  // Listen before enqueuing: QueueEvents only sees events published after it connects.
  const emailEvents = await app.ctx.queues.eventsFor('email');
  const { waitForJob } = await import('../../../src/platform/outbox/wait-for-job.js');
  const queued = await enqueueEmail(app.ctx, {
    storeId: owner.store.id,
    to: 'jane@example.com',
    templateKey: 'newsletter_welcome',
    data: { store: { name: 'x' }, customer: {}, unsubscribeUrl: url.toString() },
    marketingCustomerId: customer.id
  });
  await waitForJob(emailEvents, queued.jobId, 10_000).result;
  const log = await app.ctx.db('emailLog').where({ id: queued.emailLogId }).first();
  t.equal(log.status, 'failed');
  t.match(log.error, /not subscribed/);
  t.equal(smtp.messages.filter((m) => m.envelopeTo.includes('jane@example.com')).length, 1, 'nothing sent after the unsubscribe');

  // Subscribing again needs the address owner's confirmation (anyone with the storefront token can call
  // subscribe): a confirm link is emailed, and only its POST subscribes (then welcomed again).
  const again = await subscribe({ email: 'jane@example.com' });
  t.equal(again.status, 200);
  t.equal(again.body.data.status, 'pending_confirmation');
  t.equal((await app.ctx.db('customers').where({ id: customer.id }).first()).emailMarketing, 'unsubscribed', 'still unsubscribed');
  const confirmMail = await smtp.waitFor((m) => m.envelopeTo.includes('jane@example.com') && /Confirm your subscription/.test(m.parsed.subject ?? ''));
  const confirmUrl = new URL(/https?:\/\/\S+newsletter\/confirm\?token=[\w.-]+/.exec(confirmMail.parsed.text ?? '')![0]);
  t.equal((await app.request({ method: 'POST', url: `${confirmUrl.pathname}${confirmUrl.search}` })).status, 200);
  await smtp.waitFor((m) => m.envelopeTo.includes('jane@example.com') && /welcome/i.test(m.parsed.subject ?? '') && smtp.messages.filter((x) => x.envelopeTo.includes('jane@example.com') && /welcome/i.test(x.parsed.subject ?? '')).length === 2);
});

t.test('unsubscribe: query token with empty body, JSON token, GET, bad tokens', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const [customer] = await app.ctx
    .db('customers')
    .insert({ storeId: owner.store.id, email: 'max@example.com', emailMarketing: 'subscribed' })
    .returning('*');
  const token = unsubscribeTokenFor(app.ctx, customer.id);
  const state = async () => (await app.ctx.db('customers').where({ id: customer.id }).first()).emailMarketing;

  const get = await app.request({ url: `/public/unsubscribe?token=${token}` });
  t.equal(get.status, 200);
  t.equal(get.body.data.emailMarketing, 'subscribed');
  t.equal(await state(), 'subscribed', 'GET changes nothing');

  for (let i = 0; i < 2; i++) {
    const empty = await app.request({ method: 'POST', url: `/public/unsubscribe?token=${token}` });
    t.equal(empty.status, 200, empty.raw);
    t.same(empty.body.data, { unsubscribed: true, email: 'm***@example.com' });
  }
  t.equal(await state(), 'unsubscribed');

  await app.ctx.db('customers').where({ id: customer.id }).update({ emailMarketing: 'subscribed' });
  for (let i = 0; i < 2; i++) {
    const json = await app.request({ method: 'POST', url: '/public/unsubscribe', payload: { token } });
    t.equal(json.status, 200, json.raw);
    t.same(json.body.data, { unsubscribed: true, email: 'm***@example.com' });
  }
  t.equal(await state(), 'unsubscribed');
  const describedAfter = await app.request({ url: `/public/unsubscribe?token=${token}` });
  t.equal(describedAfter.body.data.emailMarketing, 'unsubscribed');

  const [id, sig] = token.split('.');
  // The first character changes the first six bits of the signature; the last one of a 43-character
  // base64url signature carries only two, so swapping the tail could decode to the very same bytes.
  const tampered = `${id}.${sig![0] === 'A' ? 'B' : 'A'}${sig!.slice(1)}`;
  for (const bad of [tampered, 'garbage', `${Buffer.from('x'.repeat(16)).toString('base64url')}.${sig}`]) {
    const response = await app.request({ method: 'POST', url: '/public/unsubscribe', payload: { token: bad } });
    t.equal(response.status, 422, bad);
    t.equal(response.body.error.code, 'invalid_token');
    t.equal((await app.request({ url: `/public/unsubscribe?token=${encodeURIComponent(bad)}` })).body.error.code, 'invalid_token');
  }
  const missing = await app.request({ method: 'POST', url: '/public/unsubscribe', payload: {} });
  t.equal(missing.status, 422);
  const unknownKey = await app.request({ method: 'POST', url: '/public/unsubscribe', payload: { token, email: 'x' } });
  t.equal(unknownKey.status, 422);
});

t.test('double opt-in: a customer an order created (not_subscribed) confirms before being subscribed', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { newsletterDoubleOptIn: true });
  const product = await sellable(app, owner, 'Kettle', [{ price: 3000, stock: 3 }]);
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }], { email: 'ordered@example.com' });
  t.equal((await confirm(app, owner, session.body.data.checkoutSession.id)).status, 200);
  const marketing = async () => (await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'ordered@example.com' }).first())?.emailMarketing;
  t.equal(await marketing(), 'not_subscribed', 'the order created the customer without consent');

  const subscribe = () =>
    app.request({ method: 'POST', url: '/storefront/newsletter/subscribe', payload: { email: 'ordered@example.com' }, storefrontToken: owner.storefrontToken });
  const pending = await subscribe();
  t.equal(pending.status, 200, pending.raw);
  t.same(pending.body.data, { status: 'pending_confirmation', email: 'ordered@example.com' });
  t.equal(await marketing(), 'not_subscribed', 'not subscribed by the call');
  const mail = await smtp.waitFor((m) => m.envelopeTo.includes('ordered@example.com') && /Confirm your subscription/.test(m.parsed.subject ?? ''));
  const link = new URL(/https?:\/\/\S+newsletter\/confirm\?token=[\w.-]+/.exec(mail.parsed.text ?? '')![0]);
  const confirmed = await app.request({ method: 'POST', url: `${link.pathname}${link.search}` });
  t.equal(confirmed.status, 200, confirmed.raw);
  t.equal(await marketing(), 'subscribed');

  const again = await subscribe();
  t.same(again.body.data, { subscribed: true, email: 'ordered@example.com', emailMarketing: 'subscribed' }, 'already subscribed: stays so, no new link');
  await settled(app, ['email']);
  t.equal(smtp.messages.filter((m) => /Confirm your subscription/.test(m.parsed.subject ?? '')).length, 1, 'one confirm email in all');
});
