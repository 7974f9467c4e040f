import t, { type Test } from 'tap';
import { buildApp, signupOwner, unique, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const FORM = { ...BROWSER, 'content-type': 'application/x-www-form-urlencoded' };
const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;

/** A page as a browser opens it: any path (the emailed links are not under /api/v1). */
async function open(app: TestApp, url: string, options: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) {
  const response = await app.server.inject({
    method: options.method ?? (options.form ? 'POST' : 'GET'),
    url,
    headers: options.headers ?? (options.form ? FORM : BROWSER),
    ...(options.form ? { payload: new URLSearchParams(options.form).toString() } : {})
  });
  return { status: response.statusCode, headers: response.headers, html: response.payload };
}

/** What every page promises: HTML, a strict CSP, no script, nothing loaded from elsewhere, not cached. */
function assertSafePage(t: Test, page: { headers: Record<string, unknown>; html: string }, what: string) {
  t.match(String(page.headers['content-type']), /^text\/html/, `${what}: HTML`);
  const csp = String(page.headers['content-security-policy']);
  t.match(csp, /default-src 'none'/, `${what}: nothing allowed by default`);
  t.match(csp, /form-action 'self'/, `${what}: forms post only here`);
  t.match(csp, /frame-ancestors 'none'/, `${what}: never framed`);
  t.notMatch(csp, /unsafe-inline|unsafe-eval|script-src/, `${what}: no inline code, no scripts`);
  t.notMatch(page.html, /<script/i, `${what}: no script element`);
  const markup = page.html.replace(/"[^"]*"/g, '""'); // attribute values hold (escaped) data, not markup
  t.notMatch(markup, /<(img|link|iframe|object|embed|video|audio|source)\b|<[a-z][^>]*\ssrc=/i, `${what}: nothing loaded from anywhere`);
  t.equal(page.headers['cache-control'], 'no-store', `${what}: not cached (links carry tokens)`);
  t.equal(page.headers['referrer-policy'], 'no-referrer', `${what}: the token never leaves in a Referer`);
}

const hidden = (html: string, name: string) => new RegExp(`<input type="hidden" name="${name}" id="f-${name}" value="([^"]*)"`).exec(html)?.[1];

t.test('password reset: the emailed link opens a page whose form resets the password through the API', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app);
  const forgot = await app.request({ method: 'POST', url: '/auth/forgot-password', payload: { email: owner.email } });
  t.equal(forgot.status, 200);
  const mail = await smtp.waitFor((m) => m.envelopeTo.includes(owner.email));
  const link = new URL(/https?:\/\/\S+reset-password\?token=[\w%-]+/.exec(mail.parsed.text ?? '')![0]);
  t.equal(link.origin, 'http://shop.test', 'the link is on ADMIN_URL, which defaults to APP_URL: this service');
  const token = link.searchParams.get('token')!;

  const page = await open(app, `${link.pathname}${link.search}`);
  t.equal(page.status, 200, 'the link no longer answers 404 JSON');
  assertSafePage(t, page, 'reset form');
  t.match(page.html, /<form method="post" action="\/api\/v1\/auth\/reset-password">/, 'the form posts to the reset API');
  t.equal(hidden(page.html, 'token'), token);
  t.match(page.html, /<input type="password" name="password" id="f-password" autocomplete="new-password" minlength="8" maxlength="128" required>/);
  t.match(page.html, /name="passwordConfirmation"/);
  t.equal(Number((await app.ctx.db('passwordResets').whereNull('usedAt').count('* as n').first())!.n), 1, 'opening the page used nothing');

  const differ = await open(app, '/api/v1/auth/reset-password', { form: { token, password: 'a brand new password', passwordConfirmation: 'another password!' } });
  t.equal(differ.status, 422);
  assertSafePage(t, differ, 'reset form again');
  t.match(differ.html, /the two passwords differ/);
  t.equal(hidden(differ.html, 'token'), token, 'the form again, with the token');
  const short = await open(app, '/api/v1/auth/reset-password', { form: { token, password: 'short', passwordConfirmation: 'short' } });
  t.equal(short.status, 422);
  t.match(short.html, /at least 8 characters/);
  const hostile = await open(app, '/api/v1/auth/reset-password', { form: { token: HOSTILE, password: 'short' } });
  t.equal(hostile.status, 422);
  t.notMatch(hostile.html, /<script>|<img/, 'a posted value is escaped');
  t.match(hostile.html, /value="&quot;&gt;&lt;script&gt;/);

  const done = await open(app, '/api/v1/auth/reset-password', { form: { token, password: 'a brand new password', passwordConfirmation: 'a brand new password' } });
  t.equal(done.status, 200, 'reset');
  assertSafePage(t, done, 'reset done');
  t.match(done.html, /Your password has been reset/);
  const login = await app.request({ method: 'POST', url: '/auth/login', payload: { email: owner.email, password: 'a brand new password' } });
  t.equal(login.status, 200, 'the new password signs in');

  const used = await open(app, `${link.pathname}${link.search}`);
  t.equal(used.status, 422);
  t.match(used.html, /This link is not valid/);
  t.notMatch(used.html, /<form/, 'no form for a used link');
  const again = await open(app, '/api/v1/auth/reset-password', { form: { token, password: 'yet another password', passwordConfirmation: 'yet another password' } });
  t.equal(again.status, 422);
  t.match(again.html, /This link is not valid/);
  for (const url of ['/reset-password', '/reset-password?token=', `/reset-password?token=${encodeURIComponent(HOSTILE)}`, `/reset-password?token=${'x'.repeat(500)}`, '/reset-password?token=nope&utm_source=mail']) {
    const bad = await open(app, url);
    const what = url.slice(0, 60);
    t.equal(bad.status, 422, what);
    t.match(bad.html, /This link is not valid/, what);
    t.notMatch(bad.html, /<script>/, what);
  }

  // API clients: the JSON contract is unchanged.
  const json = await app.request({ method: 'POST', url: '/auth/reset-password', payload: { token: 'nope', password: 'whatever password' } });
  t.equal(json.status, 422);
  t.equal(json.body.error.code, 'invalid_token');
  const jsonShort = await app.request({ method: 'POST', url: '/auth/reset-password', payload: { token: 'nope', password: 'short' } });
  t.match(jsonShort.body, { success: false, error: { code: 'validation_failed', details: [{ path: 'password' }] } });
  const jsonDiffer = await app.request({ method: 'POST', url: '/auth/reset-password', payload: { token: 'nope', password: 'long enough', passwordConfirmation: 'not the same' } });
  t.match(jsonDiffer.body, { error: { code: 'validation_failed', details: [{ path: 'passwordConfirmation', message: 'the two passwords differ' }] } });
});

t.test('team invite: the emailed link opens a page that creates the account or joins an existing one', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app, { storeName: 'Fern & <Co>' });
  const linkTo = async (email: string) => {
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes(email));
    const url = new URL(/https?:\/\/\S+accept-invite\?token=[\w%-]+/.exec(mail.parsed.text ?? '')![0]);
    // The email links to the console's page (/app/accept-invite); the no-script form at /accept-invite
    // (kept for links sent before) answers the same token: `path` is that form's.
    return { consolePath: `${url.pathname}${url.search}`, path: `${url.pathname.replace(/^\/app/, '')}${url.search}`, token: url.searchParams.get('token')! };
  };

  const newcomer = `${unique('new')}@example.com`;
  t.equal((await app.request({ method: 'POST', url: '/admin/store/team/invites', payload: { email: newcomer, role: 'admin' }, ...admin(owner) })).status, 201);
  const link = await linkTo(newcomer);
  t.match(link.consolePath, /^\/app\/accept-invite\?token=/, "the link opens the console's accept page (#37)");
  const page = await open(app, link.path);
  t.equal(page.status, 200, 'the link no longer answers 404 JSON');
  assertSafePage(t, page, 'invite form');
  t.match(page.html, /Join Fern &amp; &lt;Co&gt;/, 'the store name is escaped');
  t.notMatch(page.html, /<Co>/);
  t.match(page.html, /as admin \(n\*\*\*@example\.com\)/, 'the role, and the address masked (a link may be forwarded)');
  t.match(page.html, /<form method="post" action="\/api\/v1\/auth\/accept-invite">/);
  for (const field of ['firstName', 'lastName', 'password', 'passwordConfirmation']) t.match(page.html, new RegExp(`name="${field}"`), `asks for ${field}`);
  t.equal(hidden(page.html, 'token'), link.token);

  const missing = await open(app, '/api/v1/auth/accept-invite', { form: { token: link.token, firstName: `Nia${HOSTILE}`, lastName: '', password: 'long enough pw', passwordConfirmation: 'long enough pw' } });
  t.equal(missing.status, 422);
  assertSafePage(t, missing, 'invite form again');
  t.match(missing.html, /lastName is not allowed to be empty/);
  t.match(missing.html, /Join Fern &amp; &lt;Co&gt;/, 'the form again');
  t.match(missing.html, /value="Nia&quot;&gt;&lt;script&gt;/, 'what was entered stays, escaped');
  t.notMatch(missing.html, /<script>|<img/);
  t.equal(Number((await app.ctx.db('storeInvites').whereNull('acceptedAt').count('* as n').first())!.n), 1, 'nothing accepted yet');

  const joined = await open(app, '/api/v1/auth/accept-invite', { form: { token: link.token, firstName: 'Nia', lastName: 'West', password: 'long enough pw', passwordConfirmation: 'long enough pw' } });
  t.equal(joined.status, 200, 'joined');
  assertSafePage(t, joined, 'invite accepted');
  t.match(joined.html, /You joined Fern &amp; &lt;Co&gt;/);
  t.match(joined.html, new RegExp(`Sign in as ${newcomer.replace('.', '\\.')}`));
  t.notMatch(joined.html, /eyJ/, 'no access token on the page');
  const login = await app.request({ method: 'POST', url: '/auth/login', payload: { email: newcomer, password: 'long enough pw' } });
  t.equal(login.status, 200);
  t.match(login.body.data.memberships, [{ storeId: owner.store.id, role: 'admin' }]);
  const used = await open(app, link.path);
  t.equal(used.status, 422);
  t.match(used.html, /This invite link is not valid/);
  const repost = await open(app, '/api/v1/auth/accept-invite', { form: { token: link.token, firstName: 'Nia', lastName: 'West', password: 'long enough pw' } });
  t.equal(repost.status, 422);
  t.match(repost.html, /This invite link is not valid/);

  // An address with an account: the page offers to join with the token alone.
  const other = await signupOwner(app);
  t.equal((await app.request({ method: 'POST', url: '/admin/store/team/invites', payload: { email: other.email, role: 'staff' }, ...admin(owner) })).status, 201);
  const existing = await linkTo(other.email);
  const joinPage = await open(app, existing.path);
  t.equal(joinPage.status, 200);
  t.match(joinPage.html, /You already have an account/);
  t.notMatch(joinPage.html, /name="password"/, 'no password to choose');
  const joinedExisting = await open(app, '/api/v1/auth/accept-invite', { form: { token: existing.token } });
  t.equal(joinedExisting.status, 200, 'joined with the token alone');
  t.match(joinedExisting.html, /You joined Fern &amp; &lt;Co&gt;/);
  t.ok(await app.ctx.db('memberships').where({ storeId: owner.store.id, userId: other.user.id, role: 'staff' }).first(), 'the existing account joined');

  for (const url of ['/accept-invite', '/accept-invite?token=nope', `/accept-invite?token=${encodeURIComponent(HOSTILE)}`]) {
    const bad = await open(app, url);
    t.equal(bad.status, 422, url);
    t.match(bad.html, /This invite link is not valid/, url);
  }
  // API clients: the JSON contract is unchanged.
  const json = await app.request({ method: 'POST', url: '/auth/accept-invite', payload: { token: 'nope' } });
  t.equal(json.status, 422);
  t.equal(json.body.error.code, 'invalid_token');
});

t.test('order tracking: the emailed link shows a page to a browser and the same JSON to API clients', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app, { storeName: 'Lamps <&> Co' });
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Lamp <b>bright</b>', [{ price: 2599, stock: 10 }]);
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 2 }]);
  const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
  t.equal(confirmed.status, 200);
  const order = confirmed.body.data.order;
  const tracking = new URL(confirmed.body.data.trackingUrl);
  t.match(tracking.pathname, /^\/api\/v1\/public\/orders\//, 'the link a store without a storefront URL emails');
  const fulfilled = await app.request({
    method: 'POST',
    url: `/admin/orders/${order.id}/fulfillments`,
    payload: { items: [{ orderItemId: order.items[0].id, quantity: 1 }], trackingCompany: 'Parcel<Co>', trackingNumber: 'PN-1', trackingUrl: 'https://track.example/PN-1?a=1&b=2', notifyCustomer: false },
    ...admin(owner)
  });
  t.equal(fulfilled.status, 201, fulfilled.raw);

  const page = await open(app, tracking.pathname);
  t.equal(page.status, 200);
  assertSafePage(t, page, 'tracking page');
  t.match(page.html, new RegExp(`<h1>Order #${order.number}</h1>`));
  t.match(page.html, /Lamps &lt;&amp;&gt; Co/, 'the store name escaped');
  t.match(page.html, /2 × Lamp &lt;b&gt;bright&lt;\/b&gt; \(1 shipped\)/, 'items escaped, with what shipped');
  t.notMatch(page.html, /<b>bright/);
  t.match(page.html, /Total: \d+\.\d\d USD/);
  t.match(page.html, /Payment pending · Partly shipped/);
  t.match(page.html, /<a href="https:\/\/track\.example\/PN-1\?a=1&amp;b=2" rel="noopener noreferrer">Shipped [^<]* · Parcel&lt;Co&gt; · PN-1<\/a>/, 'the carrier link');
  t.notMatch(page.html, new RegExp(order.email), 'no email on the page');

  // A carrier link that is not http(s) is shown as text, never as a link.
  await app.ctx.db('fulfillments').where({ orderId: order.id }).update({ trackingUrl: 'javascript:alert(1)' });
  const unsafe = await open(app, tracking.pathname);
  t.notMatch(unsafe.html, /javascript:/);
  t.match(unsafe.html, /<li>Shipped [^<]* · Parcel&lt;Co&gt; · PN-1<\/li>/);

  const json = await app.request({ url: tracking.pathname });
  t.equal(json.status, 200);
  t.match(String(json.headers['content-type']), /application\/json/);
  t.match(json.body.data, { order: { number: order.number, items: [{ title: 'Lamp <b>bright</b>', quantity: 2 }] }, store: { name: 'Lamps <&> Co' } }, 'API clients get the JSON as before');
  const jsonPreferred = await app.request({ url: tracking.pathname, headers: { accept: 'application/json, text/html' } });
  t.equal(jsonPreferred.body.success, true, 'JSON first in Accept: JSON');

  const unknown = await open(app, '/api/v1/public/orders/no-such-token');
  t.equal(unknown.status, 404);
  assertSafePage(t, unknown, 'not found page');
  t.match(unknown.html, /Order not found/);
  const tooLong = await open(app, `/api/v1/public/orders/${'x'.repeat(300)}`);
  t.equal(tooLong.status, 422);
  t.match(tooLong.html, /Order not found/);
  const unknownJson = await app.request({ url: '/public/orders/no-such-token' });
  t.equal(unknownJson.body.error.code, 'not_found');
});
