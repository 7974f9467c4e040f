#!/usr/bin/env node
// Hardening check (issue #21, "Done means"): drives a running copy through HTTP only, as a hostile
// store owner and a hostile outsider would, and prints PASS/FAIL per step. Plain Node 20 ESM; the
// one dependency is the `stripe` package of this repository (`npm install`), to sign events exactly
// as Stripe does.
//
//   BASE_URL               the running server (default http://127.0.0.1:3000)
//   STORAGE_DIR            the server's STORAGE_DIR (default .data/storage): without SMTP_URL every
//                          mail is an .eml file in STORAGE_DIR/outbox, which is where delivery is seen
//   STRIPE_WEBHOOK_SECRET  the server's STRIPE_WEBHOOK_SECRET (default: the server's development default)
//   STRIPE_FAKE_PORT       port of the small Stripe API this script serves (default 12111); start the
//                          server with STRIPE_API_URL=http://127.0.0.1:<that port>, so connecting a
//                          store and opening a Stripe checkout talk to it instead of api.stripe.com
//   STRIPE_WEBHOOK_DELAY_MS  the server's STRIPE_WEBHOOK_DELAY_MS (default 3000): how long an event
//                          waits before its worker runs, so the check knows when one has been handled
//   CHECK_TIMEOUT_MS       how long to wait for a mail, a campaign or an order (default 60000)
//   REQUEST_TIMEOUT_MS     how long one request may go unanswered before its step fails (default 15000)
//
//   STRIPE_API_URL=http://127.0.0.1:12111 npm start          # the server, in one shell
//   node scripts/hardening-check.mjs                          # this check, in another
//
// Exit code 0 when every step passed, 1 otherwise.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { check, expectStatus, httpCheck, sleep } from './lib/http-check.mjs';

const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
const API = `${BASE_URL}/api/v1`;
const OUTBOX = path.join(path.resolve(process.env.STORAGE_DIR ?? '.data/storage'), 'outbox');
const WEBHOOK_SECRET = process.env.STRIPE_WEBHOOK_SECRET ?? 'whsec_local_dev_secret';
const STRIPE_FAKE_PORT = Number(process.env.STRIPE_FAKE_PORT ?? 12111);
const EVENT_DELAY_MS = Number(process.env.STRIPE_WEBHOOK_DELAY_MS ?? 3_000);
const TIMEOUT_MS = Number(process.env.CHECK_TIMEOUT_MS ?? 60_000);
/** One request's answer: far longer than any render limit lets a request take. */
const REQUEST_TIMEOUT_MS = Number(process.env.REQUEST_TIMEOUT_MS ?? 15_000);
/** Long enough for a queued event to have been handled: its delay, plus the worker's own time. */
const SETTLE_MS = EVENT_DELAY_MS + 4_000;
const HUGE_LOOP = '{% for i in (1..100000000) %}x{% endfor %}';
const SLOW_LOOP = '{% assign r = (1..700) %}{% for a in r %}{% for b in r %}{% for c in r %}{% endfor %}{% endfor %}{% endfor %}';

const { step, call, poll, readOutbox, finish } = httpCheck({ api: API, outbox: OUTBOX, timeoutMs: TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS });
const nowSec = () => Math.floor(Date.now() / 1000);
const run = Date.now().toString(36);

const mailsTo = async (email) => (await readOutbox()).filter((m) => m.to.includes(email.toLowerCase()));

// ---------------------------------------------------------------------------------------------
// A small Stripe API (the paths the server calls: connected accounts, onboarding links, PaymentIntents)

/** `a[b][c]=v` form fields into nested objects. */
function parseForm(text) {
  const out = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.split(/\[|\]\[|\]/).filter(Boolean);
    let node = out;
    parts.forEach((part, index) => {
      if (index === parts.length - 1) node[part] = value;
      else node = node[part] ??= {};
    });
  }
  return out;
}

const stripeId = (prefix) => `${prefix}_${randomBytes(8).toString('hex')}`;

class FakeStripe {
  accounts = new Map();
  intents = new Map();
  requests = 0;
  replays = new Map();

  async start(port) {
    this.server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        this.requests += 1;
        const send = (status, body) => {
          res.writeHead(status, { 'content-type': 'application/json', 'request-id': stripeId('req') });
          res.end(JSON.stringify(body));
        };
        const url = new URL(req.url ?? '/', 'http://local');
        const key = req.method === 'POST' && req.headers['idempotency-key'] ? `${url.pathname} ${req.headers['idempotency-key']}` : null;
        if (key && this.replays.has(key)) return send(...this.replays.get(key));
        const answer = this.route(req.method, url.pathname, parseForm(text), req.headers['stripe-account']);
        if (key) this.replays.set(key, answer);
        send(...answer);
      });
    });
    await new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', resolve);
    });
  }

  stop() {
    this.server?.close();
    this.server?.closeAllConnections?.();
  }

  route(method, pathname, body, account) {
    let match;
    const missing = (what) => [404, { error: { type: 'invalid_request_error', message: `No such ${what}` } }];
    if (method === 'POST' && pathname === '/v1/accounts') {
      // Onboarding finished at once: the account takes charges.
      const created = { id: stripeId('acct'), object: 'account', charges_enabled: true, payouts_enabled: true, details_submitted: true, requirements: { currently_due: [] }, metadata: body.metadata ?? {} };
      this.accounts.set(created.id, created);
      return [200, created];
    }
    if (method === 'GET' && (match = pathname.match(/^\/v1\/accounts\/(\w+)$/))) return this.accounts.has(match[1]) ? [200, this.accounts.get(match[1])] : missing('account');
    if (method === 'POST' && pathname === '/v1/account_links') {
      return [200, { object: 'account_link', url: `https://connect.stripe.test/setup/${body.account}`, created: nowSec(), expires_at: nowSec() + 300 }];
    }
    if (method === 'POST' && pathname === '/v1/payment_intents') {
      const id = stripeId('pi');
      const intent = {
        id,
        object: 'payment_intent',
        amount: Number(body.amount),
        currency: String(body.currency),
        status: 'requires_payment_method',
        client_secret: `${id}_secret_${randomBytes(6).toString('hex')}`,
        application_fee_amount: body.application_fee_amount === undefined ? null : Number(body.application_fee_amount),
        metadata: body.metadata ?? {}
      };
      this.intents.set(id, { intent, account });
      return [200, intent];
    }
    if ((match = pathname.match(/^\/v1\/payment_intents\/(\w+)(\/cancel)?$/))) {
      const held = this.intents.get(match[1]);
      if (!held || held.account !== account) return missing('payment_intent');
      if (method === 'POST' && match[2]) held.intent.status = 'canceled';
      return [200, held.intent];
    }
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${pathname})` } }];
  }

  /** The PaymentIntent the server made for a checkout session, now paid by the shopper. */
  paidIntentFor(sessionId) {
    const held = [...this.intents.values()].find((h) => h.intent.metadata?.checkoutSessionId === sessionId);
    check(held, `the server made no PaymentIntent on the fake Stripe for session ${sessionId}`);
    held.intent.status = 'succeeded';
    return { ...held.intent };
  }
}

// ---------------------------------------------------------------------------------------------
// Stores, templates, campaigns

/** A new store and its owner: { token, storeId, storefront, email }. */
async function signup(label) {
  const email = `hardening-${run}-${label}@example.com`;
  const data = expectStatus(
    await call('POST', '/auth/signup', {
      body: { firstName: 'Hard', lastName: label, email, password: 'hardening check password', storeName: `Hardening ${label} ${run}`, storeSlug: `hardening-${label}-${run}` }
    }),
    201,
    `signup ${label}`
  );
  return { token: data.accessToken, storeId: data.store.id, storefront: data.storefrontToken, email };
}

const as = (owner) => ({ token: owner.token, storeId: owner.storeId });

const saveTemplate = (owner, fields) => call('POST', '/admin/marketing/templates', { ...as(owner), body: { name: `tpl ${randomBytes(3).toString('hex')}`, subject: 'Hello', text: 'plain', ...fields } });

/** A refused save: 422 template_invalid whose message and first detail name `reason`; nothing of `leaks` in the answer. */
function expectTemplateInvalid(response, reason, what, leaks = []) {
  check(response.status === 422, `${what}: expected 422, got ${response.status} ${response.text.slice(0, 300)}`);
  const error = response.json?.error;
  check(error?.code === 'template_invalid', `${what}: code ${error?.code}, not template_invalid`);
  check(reason.test(error.message) && reason.test(error.details?.[0]?.message ?? ''), `${what}: "${error.message}" does not say ${reason}`);
  for (const leak of leaks) check(!response.text.includes(leak), `${what}: the answer carries the file's content (${leak})`);
  return error.message;
}

/** Files the server can read: what a template that resolved them would show. */
const SERVER_FILES = [
  { name: 'package.json', marker: '"engines"' },
  { name: '/etc/passwd', marker: 'root:x:0:0' },
  { name: '../../../../etc/hostname', marker: null }
];

async function fileTagRefused(owner, tag) {
  const shapes = [
    (file) => ({ field: 'html', source: `<p>Hi</p>\n{% ${tag} '${file}' %}` }),
    (file) => ({ field: 'text', source: `Hello\n{% liquid\n  ${tag} '${file}'\n%}` }),
    (file) => ({ field: 'subject', source: `{% ${tag} "${file}" %}` })
  ];
  const reason = new RegExp(`\\{% ${tag} %\\} is not allowed`);
  const leaks = SERVER_FILES.map((f) => f.marker).filter(Boolean);
  let tried = 0;
  for (const { name } of SERVER_FILES) {
    for (const shape of shapes) {
      const { field, source } = shape(name);
      const saved = await saveTemplate(owner, { [field]: source });
      expectTemplateInvalid(saved, reason, `template ${field} {% ${tag} '${name}' %}`, leaks);
      check(saved.json.error.details[0].path === field, `the detail names ${saved.json.error.details[0].path}, not ${field}`);
      tried += 1;
    }
  }
  // Replacing a good template, and a campaign's own content, go through the same check.
  const good = expectStatus(await saveTemplate(owner, { subject: 'Fine {{ customer.firstName }}' }), 201, 'a good template');
  const replaced = await call('PUT', `/admin/marketing/templates/${good.template.id}`, { ...as(owner), body: { name: 'Fine', subject: 'Hi', html: `{% ${tag} 'package.json' %}` } });
  expectTemplateInvalid(replaced, reason, `PUT with {% ${tag} %}`, leaks);
  const still = expectStatus(await call('GET', `/admin/marketing/templates/${good.template.id}`, as(owner)), 200, 'read the good template back');
  check(!still.template.html.includes(tag), 'the refused replace changed the stored template');
  const campaign = await call('POST', '/admin/marketing/campaigns/generic', { ...as(owner), body: { subject: 'News', html: `<p>x</p>{% ${tag} 'package.json' %}`, text: 'x', audience: {} } });
  expectTemplateInvalid(campaign, reason, `campaign content with {% ${tag} %}`, leaks);
  return `${tried} saves, a replace and a campaign: 422 template_invalid "{% ${tag} %} is not allowed", no file content`;
}

/** Imports `count` subscribed customers tagged `tag` (last name `lastName`) and waits for the job. */
async function importSubscribers(owner, tag, count, lastName) {
  const emails = Array.from({ length: count }, (_, i) => `${tag}-${i + 1}@example.com`);
  const csv = ['email,firstName,lastName,tags,emailMarketing', ...emails.map((e, i) => `${e},Reader${i + 1},${lastName},${tag},subscribed`)].join('\n');
  const accepted = expectStatus(await call('POST', '/admin/customers/import', { ...as(owner), raw: csv, contentType: 'text/csv' }), 202, 'customer import');
  const job = await poll('import job', async () => {
    const j = expectStatus(await call('GET', `/admin/jobs/${accepted.job.id}`, as(owner)), 200, 'GET job').job;
    return { done: j.status === 'completed' || j.status === 'failed', value: j, state: j.status };
  });
  check(job.status === 'completed' && job.result?.created === count, `import ${job.status}: ${JSON.stringify(job.result ?? job.error)}`);
  return emails;
}

async function createCampaign(owner, fields) {
  return expectStatus(
    await call('POST', '/admin/marketing/campaigns/generic', { ...as(owner), headers: { 'idempotency-key': `hardening-${randomBytes(6).toString('hex')}` }, body: fields }),
    202,
    'create campaign'
  ).campaign.id;
}

async function campaignDone(owner, id) {
  return poll(`campaign ${id}`, async () => {
    const c = expectStatus(await call('GET', `/admin/marketing/campaigns/${id}`, as(owner)), 200, 'GET campaign').campaign;
    return { done: ['sent', 'failed', 'cancelled'].includes(c.status), value: c, state: `${c.status} (${c.sent}/${c.recipients})` };
  });
}

// ---------------------------------------------------------------------------------------------
// Stripe: a store taking Stripe payments, signed events

let signer = null;
async function loadSigner() {
  const { default: Stripe } = await import('stripe');
  signer = new Stripe('sk_test_hardening_check');
}

/** POSTs an event to the webhook receiver, signed with the server's secret (or `secret`) at `timestamp`. */
function deliver(event, { timestamp, secret = WEBHOOK_SECRET, raw } = {}) {
  const payload = raw ?? JSON.stringify(event);
  const signature = signer.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
  return call('POST', '/internal/webhooks/stripe', { raw: payload, contentType: 'application/json', headers: { 'stripe-signature': signature } });
}

let eventCounter = 0;
function stripeEvent(type, object, account, created = nowSec()) {
  eventCounter += 1;
  return { id: `evt_hardening_${run}_${eventCounter}`, object: 'event', api_version: '2024-06-20', type, created, livemode: false, ...(account ? { account } : {}), data: { object } };
}

/** Delivers an event the receiver must acknowledge with 200 (whatever it then does with it). */
async function acknowledged(event, what) {
  const response = await deliver(event);
  check(response.status === 200, `${what}: expected 200, got ${response.status} ${response.text.slice(0, 300)}`);
}

/** A store taking Stripe payments only (manual payments off), with a 20000 product and one 500 shipping method. */
async function stripeShop(owner, fake) {
  expectStatus(
    await call('PATCH', '/admin/store', { ...as(owner), body: { manualPaymentsEnabled: false, shippingMethods: [{ name: 'Standard', price: 500 }] } }),
    200,
    'store settings'
  );
  const link = await call('POST', '/admin/store/payments/onboarding-link', { ...as(owner), body: { returnUrl: 'https://admin.example/done', refreshUrl: 'https://admin.example/retry' } });
  check(
    link.status === 200,
    `onboarding link: ${link.status} ${link.text.slice(0, 300)}${fake.requests === 0 ? ` (the fake Stripe on port ${STRIPE_FAKE_PORT} was never called: start the server with STRIPE_API_URL=http://127.0.0.1:${STRIPE_FAKE_PORT})` : ''}`
  );
  const payments = expectStatus(await call('GET', '/admin/store/payments', as(owner)), 200, 'payments status');
  check(payments.accountId && payments.chargesEnabled, `payments ${JSON.stringify(payments)}`);
  const product = expectStatus(
    await call('POST', '/admin/products', { ...as(owner), body: { title: `Board ${run}`, status: 'active', variants: [{ sku: `HB-${run}-${owner.storeId.slice(0, 6)}`, price: 20000, inventoryQuantity: 100 }] } }),
    201,
    'product'
  ).product;
  const store = expectStatus(await call('GET', '/admin/store', as(owner)), 200, 'store').store;
  return { ...owner, accountId: payments.accountId, variantId: product.variants[0].id, shippingMethodId: store.shippingMethods[0].id };
}

let checkouts = 0;
/** A shopper's Stripe checkout of one board, paid on the fake Stripe: { sessionId, email, intent }. */
async function stripeCheckout(shop, fake) {
  checkouts += 1;
  const email = `buyer-${run}-${checkouts}@example.com`;
  const sf = { storefront: shop.storefront };
  const cart = expectStatus(await call('POST', '/storefront/carts', { ...sf, body: { items: [{ variantId: shop.variantId, quantity: 1 }] } }), 201, 'cart').cart;
  expectStatus(await call('POST', `/storefront/carts/${cart.id}/shipping-method`, { ...sf, body: { shippingMethodId: shop.shippingMethodId } }), 200, 'shipping method');
  const session = expectStatus(
    await call('POST', `/storefront/carts/${cart.id}/checkout-session`, {
      ...sf,
      body: { email, provider: 'stripe', shippingAddress: { firstName: 'Sam', lastName: 'Shopper', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' } }
    }),
    201,
    'checkout session'
  ).checkoutSession;
  check(session.provider === 'stripe' && session.clientSecret, `session ${JSON.stringify(session)}`);
  const intent = fake.paidIntentFor(session.id);
  check(intent.amount === session.amount, `PaymentIntent amount ${intent.amount}, session ${session.amount}`);
  return { sessionId: session.id, email, intent };
}

/** The store's order of a checkout (by its buyer's unique email), or null. */
async function orderOf(shop, checkout) {
  const list = expectStatus(await call('GET', `/admin/orders?q=${encodeURIComponent(checkout.email)}`, as(shop)), 200, 'orders list');
  const summary = list.orders.find((o) => o.email === checkout.email);
  if (!summary) return null;
  return expectStatus(await call('GET', `/admin/orders/${summary.id}`, as(shop)), 200, 'order').order;
}

const orderWhere = (shop, checkout, what, test) =>
  poll(what, async () => {
    const order = await orderOf(shop, checkout);
    return { done: Boolean(order && test(order)), value: order, state: order ? `${order.paymentStatus}, ${order.amountRefunded} refunded` : 'no order' };
  });

// ---------------------------------------------------------------------------------------------

async function main() {
  const fake = new FakeStripe();
  console.log(`hardening check (issue #21) against ${API}; outbox ${OUTBOX}; fake Stripe API on 127.0.0.1:${STRIPE_FAKE_PORT}; run ${run}`);

  await step('health', async () => {
    const data = expectStatus(await call('GET', '/health'), 200, 'GET /health');
    check(data.status === 'ok', `status ${data.status}`);
    return `database ${data.database}, queue ${data.queue}`;
  });

  let bad;
  let good;
  if (!(await step('two stores sign up (a hostile one and a bystander)', async () => void ([bad, good] = await Promise.all([signup('hostile'), signup('bystander')]))))) return;

  // 1. Templates cannot reach the server.
  for (const tag of ['include', 'render', 'layout']) {
    await step(`a template with {% ${tag} %} of a server file is refused on save (422 template_invalid naming the tag)`, () => fileTagRefused(bad, tag));
  }

  // 2. Templates cannot take the worker down.
  await step('a huge loop (1..100000000) is refused on save, quickly; so is a render over the CPU time limit', async () => {
    const reasons = [];
    for (const [field, source, reason] of [
      ['text', HUGE_LOOP, /too large/],
      ['html', `<p>${HUGE_LOOP}</p>`, /too large/],
      ['text', SLOW_LOOP, /CPU time/]
    ]) {
      const saved = await saveTemplate(bad, { [field]: source });
      reasons.push(expectTemplateInvalid(saved, reason, `${field} ${source.slice(0, 40)}`));
      check(saved.ms < 5_000, `the refusal took ${saved.ms} ms`);
    }
    const campaign = await call('POST', '/admin/marketing/campaigns/generic', { ...as(bad), body: { subject: 'x', text: HUGE_LOOP, audience: {} } });
    expectTemplateInvalid(campaign, /too large/, 'campaign with a huge loop');
    return reasons.map((r) => `"${r}"`).join('; ');
  });

  await step('a template over a limit only with real data fails its own send; the bystander\'s mail queued with it is delivered', async () => {
    // Passes the check on save (the sample data has a campaign), loops 1e8 times for a transactional send.
    const sneaky = `{% if campaign %}ok{% else %}${HUGE_LOOP}{% endif %}`;
    expectStatus(await saveTemplate(bad, { key: 'order_confirmation', name: 'Sneaky', subject: 'Order {{ order.number }}', text: sneaky }), 201, 'the sneaky override saves');
    const subject = `Bystander ${run}`;
    expectStatus(await saveTemplate(good, { key: 'order_confirmation', name: 'Fine', subject: `${subject} {{ order.number }}`, text: 'Thanks {{ customer.firstName }}' }), 201, 'the good override');
    const victim = `victim-${run}@example.com`;
    const bystander = `bystander-${run}@example.com`;
    const [badSend, goodSend] = await Promise.all([
      call('POST', '/admin/store/email/test-template', { ...as(bad), body: { toEmail: victim, templateKey: 'order_confirmation' } }),
      call('POST', '/admin/store/email/test-template', { ...as(good), body: { toEmail: bystander, templateKey: 'order_confirmation' } })
    ]);
    const reason = expectTemplateInvalid(badSend, /template over a limit/, 'the bad send');
    expectStatus(goodSend, 200, 'the good send');
    const delivered = await poll(`mail to ${bystander} in ${OUTBOX}`, async () => {
      const mails = await mailsTo(bystander);
      return { done: mails.length > 0, value: mails, state: `${mails.length} mails` };
    });
    check(delivered.length === 1 && delivered[0].subject.startsWith(subject), `mails to the bystander: ${delivered.map((m) => m.subject).join(', ')}`);
    // The worker goes on, for the hostile store too.
    const after = `after-${run}@example.com`;
    expectStatus(await call('POST', '/admin/store/email/test-template', { ...as(bad), body: { toEmail: after, templateKey: 'password_reset' } }), 200, 'the next send of the hostile store');
    await poll(`mail to ${after}`, async () => ({ done: (await mailsTo(after)).length > 0 }));
    check((await mailsTo(victim)).length === 0, 'the over-limit template was sent anyway');
    return `bad send 422 "${reason}"; bystander's mail "${delivered[0].subject}" delivered; the worker sent the next one too`;
  });

  await step('a campaign over a limit with real data fails with the reason; the bystander\'s campaign queued with it is delivered', async () => {
    const [badEmails, goodEmails] = await Promise.all([importSubscribers(bad, `bad-${run}`, 6, 'Outside'), importSubscribers(good, `good-${run}`, 6, 'Reader')]);
    // Passes the check on save (the sample customer is Jane Doe); loops 1e8 times for every real recipient.
    const badId = await createCampaign(bad, { subject: 'Hostile {{ customer.firstName }}', text: `{% if customer.lastName == "Doe" %}hi{% else %}${HUGE_LOOP}{% endif %}`, audience: { filters: { tags: [`bad-${run}`] } } });
    const goodId = await createCampaign(good, { subject: `Bystander news ${run} for {{ customer.firstName }}`, text: 'Hello {{ customer.firstName }}', audience: { filters: { tags: [`good-${run}`] } } });
    const [badDone, goodDone] = await Promise.all([campaignDone(bad, badId), campaignDone(good, goodId)]);
    check(goodDone.status === 'sent' && goodDone.sent === goodEmails.length && goodDone.failed === 0, `bystander campaign ${JSON.stringify(goodDone)}`);
    check(badDone.status === 'failed' && badDone.sent === 0 && badDone.failed === badEmails.length, `hostile campaign ${JSON.stringify(badDone)}`);
    check(/template over a limit/.test(badDone.error ?? ''), `hostile campaign error: ${badDone.error}`);
    const mails = await readOutbox();
    const goodMails = mails.filter((m) => m.campaignId === goodId);
    check(goodMails.length === goodEmails.length, `${goodMails.length} .eml files of the bystander's campaign, ${goodEmails.length} expected`);
    check(!mails.some((m) => m.campaignId === badId), 'a message of the hostile campaign was sent');
    return `bystander: ${goodMails.length}/${goodEmails.length} delivered; hostile: failed, "${badDone.error}"`;
  });

  // 3 and 4. Payment events.
  let fakeUp = false;
  await step(`the fake Stripe API listens on 127.0.0.1:${STRIPE_FAKE_PORT} and events can be signed (stripe package)`, async () => {
    await loadSigner();
    await fake.start(STRIPE_FAKE_PORT);
    fakeUp = true;
  });
  let shopA;
  let shopB;
  const stripeReady = fakeUp && (await step('both stores connect Stripe (connected accounts on the fake Stripe) and sell a board', async () => {
    [shopA, shopB] = await Promise.all([stripeShop(bad, fake), stripeShop(good, fake)]);
    check(shopA.accountId !== shopB.accountId, 'one account for both stores');
    return `${shopA.accountId}, ${shopB.accountId}`;
  }));

  // Without the Stripe stores these steps cannot run: each counts as a FAIL rather than vanishing.
  const stripeStep = (name, fn) => step(name, stripeReady ? fn : async () => void check(false, 'not run: the stores could not take Stripe payments (see above)'));
  await stripeStep('a payment_intent.succeeded from another connected account (or the platform) changes nothing and is answered 200', async () => {
    const checkout = await stripeCheckout(shopA, fake);
    await acknowledged(stripeEvent('payment_intent.succeeded', checkout.intent, shopB.accountId), 'event from store B\'s account');
    await acknowledged(stripeEvent('payment_intent.succeeded', checkout.intent, undefined), 'event from the platform account');
    await sleep(SETTLE_MS);
    check(!(await orderOf(shopA, checkout)), 'the foreign event made store A an order');
    // Control: the same event from A's own account makes the order, so the worker was running.
    await acknowledged(stripeEvent('payment_intent.succeeded', checkout.intent, shopA.accountId), 'event from store A\'s account');
    const order = await orderWhere(shopA, checkout, 'the genuine event\'s order', (o) => o.paymentStatus === 'paid');
    return `no order after ${SETTLE_MS} ms; then A's own event made order #${order.number}, paid`;
  });

  await stripeStep('a charge.refunded from another connected account leaves the paid order unrefunded (answered 200)', async () => {
    const checkout = await stripeCheckout(shopA, fake);
    await acknowledged(stripeEvent('payment_intent.succeeded', checkout.intent, shopA.accountId), 'genuine payment');
    const paid = await orderWhere(shopA, checkout, 'the paid order', (o) => o.paymentStatus === 'paid');
    const charge = { id: `ch_${run}`, object: 'charge', payment_intent: checkout.intent.id, amount: checkout.intent.amount, currency: checkout.intent.currency };
    // Dated later than anything genuine: if it were believed, no genuine refund could undo it.
    await acknowledged(stripeEvent('charge.refunded', { ...charge, amount_refunded: charge.amount, refunded: true }, shopB.accountId, nowSec() + 120), 'foreign full refund');
    await sleep(SETTLE_MS);
    const after = await orderOf(shopA, checkout);
    check(after.paymentStatus === 'paid' && after.amountRefunded === 0, `after the foreign refund: ${after.paymentStatus}, ${after.amountRefunded} refunded`);
    // Control: a genuine partial refund (older than the foreign one) is applied.
    await acknowledged(stripeEvent('charge.refunded', { ...charge, amount_refunded: 100, refunded: false }, shopA.accountId, nowSec() + 1), 'genuine partial refund');
    const partial = await orderWhere(shopA, checkout, 'the genuine partial refund', (o) => o.amountRefunded > 0);
    check(partial.paymentStatus === 'partially_refunded' && partial.amountRefunded === 100, `after the genuine refund: ${partial.paymentStatus}, ${partial.amountRefunded}`);
    return `order #${paid.number}: still paid after the foreign refund; A's own refund of 100 applied alone`;
  });

  await stripeStep('a payment event for another amount or currency changes nothing (answered 200)', async () => {
    const checkout = await stripeCheckout(shopA, fake);
    await acknowledged(stripeEvent('payment_intent.succeeded', { ...checkout.intent, amount: 100 }, shopA.accountId), 'event for 100');
    await acknowledged(stripeEvent('payment_intent.succeeded', { ...checkout.intent, currency: 'eur' }, shopA.accountId), 'event in eur');
    await sleep(SETTLE_MS);
    check(!(await orderOf(shopA, checkout)), 'an event for another amount or currency made an order');
    await acknowledged(stripeEvent('payment_intent.succeeded', checkout.intent, shopA.accountId), 'the genuine event');
    await orderWhere(shopA, checkout, 'the genuine event\'s order', (o) => o.paymentStatus === 'paid');
    return `no order for amount 100 or eur; the genuine ${checkout.intent.amount} ${checkout.intent.currency} made it`;
  });

  await stripeStep('payment_intent.payment_failed after succeeded (newer or older) leaves the order paid', async () => {
    const checkout = await stripeCheckout(shopA, fake);
    const created = nowSec();
    await acknowledged(stripeEvent('payment_intent.succeeded', checkout.intent, shopA.accountId, created), 'succeeded');
    const paid = await orderWhere(shopA, checkout, 'the paid order', (o) => o.paymentStatus === 'paid');
    const failedIntent = { ...checkout.intent, status: 'requires_payment_method' };
    await acknowledged(stripeEvent('payment_intent.payment_failed', failedIntent, shopA.accountId, created + 5), 'newer payment_failed');
    await acknowledged(stripeEvent('payment_intent.payment_failed', failedIntent, shopA.accountId, created - 5), 'older payment_failed');
    // A sentinel queued after them: once it is applied, the failures before it have been handled.
    const sentinel = await stripeCheckout(shopA, fake);
    await acknowledged(stripeEvent('payment_intent.succeeded', sentinel.intent, shopA.accountId), 'sentinel');
    await orderWhere(shopA, sentinel, 'the sentinel order', (o) => o.paymentStatus === 'paid');
    await sleep(1_000);
    const after = await orderOf(shopA, checkout);
    check(after.paymentStatus === 'paid', `order #${paid.number} is ${after.paymentStatus}`);
    const failedList = expectStatus(await call('GET', '/admin/orders?paymentStatus=failed', as(shopA)), 200, 'failed orders');
    check(!failedList.orders.some((o) => o.id === paid.id), 'listed among failed orders');
    return `order #${paid.number} still paid after both`;
  });

  await stripeStep('a numeric or malformed event id is 400 (4xx, never 5xx), and a bad signature is 400', async () => {
    const statuses = [];
    for (const id of [12345, 1.5, 'evt_../../x', '', null]) {
      const response = await deliver({ ...stripeEvent('payment_intent.succeeded', { id: 'pi_x', object: 'payment_intent' }, shopA.accountId), id });
      statuses.push(`${JSON.stringify(id)} ${response.status}`);
      check(response.status === 400, `id ${JSON.stringify(id)}: ${response.status} ${response.text.slice(0, 200)}`);
      check(response.json?.error?.code === 'bad_request', `id ${JSON.stringify(id)}: code ${response.json?.error?.code}`);
    }
    const forged = await deliver(stripeEvent('payment_intent.succeeded', { id: 'pi_x', object: 'payment_intent' }, shopA.accountId), { secret: 'whsec_not_the_servers' });
    check(forged.status === 400, `a wrong secret: ${forged.status}`);
    const notJson = await deliver(null, { raw: '[1,2,3]' });
    check(notJson.status === 400, `a body that is no event: ${notJson.status}`);
    return statuses.join(', ');
  });

  await stripeStep('a signature timestamp more than 5 minutes off, either way, is refused; a minute off is accepted', async () => {
    const statuses = [];
    for (const offset of [6 * 60, -6 * 60, 3600]) {
      const response = await deliver(stripeEvent('customer.created', { id: 'cus_x', object: 'customer' }, shopA.accountId), { timestamp: nowSec() + offset });
      statuses.push(`${offset > 0 ? '+' : ''}${offset} s: ${response.status}`);
      check(response.status === 400, `signed ${offset} s off: ${response.status} ${response.text.slice(0, 200)}`);
    }
    const inTime = await deliver(stripeEvent('customer.created', { id: 'cus_x', object: 'customer' }, shopA.accountId), { timestamp: nowSec() - 60 });
    check(inTime.status === 200, `signed a minute ago: ${inTime.status} ${inTime.text.slice(0, 200)}`);
    statuses.push(`-60 s: ${inTime.status}`);
    return statuses.join(', ');
  });

  // OpenAPI.
  let document = null;
  await step('every OpenAPI operation has an operationId, unique', async () => {
    const response = await call('GET', '/openapi.json');
    check(response.status === 200, `GET /openapi.json: ${response.status}`);
    document = response.json?.paths ? response.json : response.json?.data;
    check(document?.paths, 'no paths in the document');
    const operations = Object.entries(document.paths).flatMap(([p, methods]) =>
      Object.entries(methods)
        .filter(([method]) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method))
        .map(([method, operation]) => ({ name: `${method.toUpperCase()} ${p}`, id: operation.operationId }))
    );
    check(operations.length > 0, 'no operations');
    const missing = operations.filter((o) => typeof o.id !== 'string' || !o.id);
    check(!missing.length, `${missing.length} without operationId: ${missing.slice(0, 5).map((o) => o.name).join(', ')}`);
    const seen = new Map();
    const dupes = operations.filter((o) => (seen.has(o.id) ? true : (seen.set(o.id, o.name), false)));
    check(!dupes.length, `shared operationIds: ${dupes.map((o) => `${o.id} (${o.name}, ${seen.get(o.id)})`).join(', ')}`);
    return `${operations.length} operations, ${seen.size} distinct operationIds`;
  });

  await step('OpenAPI: upload bodies documented, no nullable without a type, orders filter paymentStatus and fulfillmentStatus', async () => {
    check(document, 'no document from the previous step');
    const nodes = [];
    const walk = (node, at) => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${at}/${i}`));
      else if (node && typeof node === 'object') {
        if ('nullable' in node && typeof node.type !== 'string') nodes.push(at);
        for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
      }
    };
    walk(document, '#');
    check(!nodes.length, `nullable without a type at ${nodes.slice(0, 5).join(', ')}`);
    const importBody = document.paths['/api/v1/admin/customers/import']?.post?.requestBody;
    check(importBody?.content?.['text/csv'] || importBody?.content?.['multipart/form-data'], 'the customers import documents no body');
    const mediaBody = document.paths['/api/v1/admin/store/media']?.post?.requestBody;
    check(mediaBody?.content?.['multipart/form-data'], 'the media upload documents no multipart body');
    const params = (document.paths['/api/v1/admin/orders']?.get?.parameters ?? []).map((p) => p.name);
    check(params.includes('paymentStatus') && params.includes('fulfillmentStatus'), `orders list parameters: ${params.join(', ')}`);
    return 'customers import and media upload bodies, orders list paymentStatus + fulfillmentStatus';
  });

  fake.stop();
}

await main();
finish();
