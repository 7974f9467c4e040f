import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, setupShop, sellable } from '../../helpers/checkout.js';
import { connectStripe, startStripeServer } from '../../helpers/stripe-server.js';

t.test('payments: Stripe Connect onboarding, status, dashboard link, reset, roles', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { env: { STRIPE_API_URL: stripe.url } });
  const owner = await signupOwner(app);
  const adminUser = await addMember(app, owner.store.id, 'admin');
  const staff = await addMember(app, owner.store.id, 'staff');
  const as = (user: { accessToken: string }) => ({ token: user.accessToken, storeId: owner.store.id });

  const initial = await app.request({ url: '/admin/store/payments', ...admin(owner) });
  t.same(initial.body.data, { provider: 'stripe', status: 'not_connected', accountId: null, chargesEnabled: false, payoutsEnabled: false, detailsSubmitted: false, requirementsDue: [] });
  t.equal((await app.request({ url: '/admin/store/payments', ...as(adminUser) })).status, 200, 'admins may read the status');
  t.equal((await app.request({ url: '/admin/store/payments', ...as(staff) })).status, 403);
  const body = { returnUrl: 'https://admin.example/done', refreshUrl: 'https://admin.example/retry' };
  t.equal((await app.request({ method: 'POST', url: '/admin/store/payments/onboarding-link', payload: body, ...as(adminUser) })).status, 403, 'connect is owner-only');
  t.equal((await app.request({ method: 'POST', url: '/admin/store/payments/onboarding-link', payload: { returnUrl: 'nope' }, ...admin(owner) })).status, 422);

  const early = await app.request({ method: 'POST', url: '/admin/store/payments/dashboard-link', ...admin(owner) });
  t.equal(early.status, 409, 'no dashboard before onboarding');

  const link = await app.request({ method: 'POST', url: '/admin/store/payments/onboarding-link', payload: body, ...admin(owner) });
  t.equal(link.status, 200, link.raw);
  t.match(link.body.data, { url: /^https:\/\/connect\.stripe\.test\/setup\/acct_/, expiresAt: /Z$/ });
  const createCalls = stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/accounts');
  t.equal(createCalls.length, 1);
  t.match(createCalls[0]!.idempotencyKey, new RegExp(`^connect-account:${owner.store.id}:0$`), 'a fixed idempotency key per business operation');
  t.ok(stripe.requests.filter((r) => r.path === '/v1/account_links').every((r) => r.idempotencyKey?.startsWith('account-link:')));
  const again = await app.request({ method: 'POST', url: '/admin/store/payments/onboarding-link', payload: body, ...admin(owner) });
  t.equal(again.status, 200);
  t.equal(stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/accounts').length, 1, 'the account is created once');
  const onboarding = await app.request({ url: '/admin/store/payments', ...admin(owner) });
  t.match(onboarding.body.data, { status: 'onboarding', accountId: /^acct_/, requirementsDue: ['external_account', 'tos_acceptance.date'] });

  stripe.activate(onboarding.body.data.accountId, { charges_enabled: false });
  t.equal((await app.request({ url: '/admin/store/payments', ...admin(owner) })).body.data.status, 'restricted');
  stripe.activate(onboarding.body.data.accountId, { payouts_enabled: false });
  t.match((await app.request({ url: '/admin/store/payments', ...admin(owner) })).body.data, { status: 'restricted', chargesEnabled: true, payoutsEnabled: false }, 'payouts paused: restricted');
  stripe.activate(onboarding.body.data.accountId);
  const active = await app.request({ url: '/admin/store/payments', ...admin(owner) });
  t.match(active.body.data, { status: 'active', chargesEnabled: true, payoutsEnabled: true, detailsSubmitted: true, requirementsDue: [] });
  const dashboard = await app.request({ url: '/admin/store', ...admin(owner) });
  t.equal(dashboard.body.data.setup.paymentsConnected, true);

  const login = await app.request({ method: 'POST', url: '/admin/store/payments/dashboard-link', ...admin(owner) });
  t.equal(login.status, 200);
  t.match(login.body.data.url, /^https:\/\/connect\.stripe\.test\/express\/acct_/);

  stripe.failing = true;
  const down = await app.request({ method: 'POST', url: '/admin/store/payments/dashboard-link', ...admin(owner) });
  t.equal(down.status, 502);
  t.equal(down.body.error.code, 'upstream_failed');
  stripe.failing = false;

  const reset = await app.request({ method: 'POST', url: '/admin/store/payments/reset', ...admin(owner) });
  t.equal(reset.status, 200);
  t.equal(reset.body.data.status, 'not_connected');
  t.equal((await app.request({ url: '/admin/store', ...admin(owner) })).body.data.setup.paymentsConnected, false);
  await app.request({ method: 'POST', url: '/admin/store/payments/onboarding-link', payload: body, ...admin(owner) });
  const creates = stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/accounts');
  t.equal(creates.length, 2, 'after a reset a new account is created');
  t.equal(creates[1]!.idempotencyKey, `connect-account:${owner.store.id}:1`);
});

t.test('stripe checkout: PaymentIntent on the connected account, clientSecret, confirm needs the payment', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { env: { STRIPE_API_URL: stripe.url, STRIPE_APPLICATION_FEE_BPS: '250' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { manualPaymentsEnabled: false });
  const accountId = await connectStripe(app, stripe, owner);
  const product = await sellable(app, owner, 'Bike', [{ price: 40000, stock: 3 }]);

  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }]);
  t.equal(session.status, 201, session.raw);
  const checkoutSession = session.body.data.checkoutSession;
  t.match(checkoutSession, { provider: 'stripe', amount: 41500, clientSecret: /^pi_\w+_secret_/ });
  const create = stripe.requests.find((r) => r.path === '/v1/payment_intents')!;
  t.equal(create.stripeAccount, accountId, 'created on the connected account');
  t.equal(create.idempotencyKey, `checkout-session:${checkoutSession.id}:payment-intent`);
  t.match(create.body, { amount: '41500', currency: 'usd', application_fee_amount: String(Math.floor(41500 * 0.025)), metadata: { checkoutSessionId: checkoutSession.id, storeId: owner.store.id } });

  const unpaid = await confirm(app, owner, checkoutSession.id);
  t.equal(unpaid.status, 409);
  t.equal(unpaid.body.error.code, 'payment_not_completed');
  const intentId = [...stripe.intents.keys()][0]!;
  stripe.setIntentStatus(intentId, 'requires_capture');
  const paid = await confirm(app, owner, checkoutSession.id);
  t.equal(paid.status, 200, paid.raw);
  t.match(paid.body.data.order, { paymentStatus: 'authorized', total: 41500 }, 'a card hold awaiting capture is authorized, not paid');

  // Stripe down while the session opens: 502 and the stock is not held.
  stripe.failing = true;
  const { session: failed } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }]);
  t.equal(failed.status, 502);
  t.equal(failed.body.error.code, 'upstream_failed');
  stripe.failing = false;
  t.equal((await app.ctx.db('productVariants').where({ id: product.variants[0]!.id }).first()).inventoryQuantity, 2);
});

t.test('the provider a new session picks follows the Stripe account at once: connect, reset', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { env: { STRIPE_API_URL: stripe.url } });
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Lamp', [{ price: 3000, stock: 10 }]);
  const providerOfNewSession = async () => {
    const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }]);
    t.equal(session.status, 201, session.raw);
    return session.body.data.checkoutSession.provider as string;
  };
  t.equal(await providerOfNewSession(), 'manual', 'no Stripe account: manual (and the answer is now cached)');
  await connectStripe(app, stripe, owner);
  t.equal(await providerOfNewSession(), 'stripe', 'once the account takes charges, the next session uses Stripe');
  t.equal((await app.request({ method: 'POST', url: '/admin/store/payments/reset', ...admin(owner) })).status, 200);
  t.equal(await providerOfNewSession(), 'manual', 'after a reset, the next session is manual again');
});
