import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';
import { ADDRESS, methodsOf, setupShop, sf } from '../../helpers/checkout.js';
import { deliverStripeEvent, stripeEvent, stripeEventHandled } from '../../helpers/stripe-events.js';
import { connectStripe, startStripeServer } from '../../helpers/stripe-server.js';

/**
 * The Stripe Tax provider against the local Stripe API server: a calculation per checkout session
 * (its tax on the session, the order and the amount charged), a tax transaction from it when the
 * order is placed, a reversal per refund; Stripe failing or hanging fails the checkout with 503
 * tax_provider_unavailable and charges nothing, never a silent zero tax.
 */

type SyncQueue = ReturnType<TestApp['ctx']['queues']['get']>;

/**
 * Waits until the tax-sync job has failed an attempt and waits out its backoff, runs it now, and
 * answers how that attempt ended: 'delayed' (refused again, a retry to come) or 'completed'.
 */
async function retryNow(queue: SyncQueue, jobId: string) {
  const deadline = Date.now() + 20_000;
  const stateOf = async () => {
    const job = await queue.getJob(jobId);
    return { job, state: job ? await job.getState() : 'absent', attempts: job?.attemptsMade ?? 0 };
  };
  let current = await stateOf();
  while (current.state !== 'delayed') {
    if (Date.now() > deadline) throw new Error(`job ${jobId} never waited for a retry (${current.state})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    current = await stateOf();
  }
  await current.job!.promote();
  const before = current.attempts;
  for (;;) {
    current = await stateOf();
    if (current.attempts > before && ['delayed', 'completed'].includes(current.state)) return current.state;
    if (Date.now() > deadline) throw new Error(`job ${jobId}'s retry never ended (${current.state})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function until(what: string, check: () => Promise<boolean>) {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A Stripe Tax shop (New York at 8.88 %) selling a lamp at 4999, and a checkout session opened for
 * two lamps with express shipping (12519, 1021 of it tax). `paidByStripe`: the store connects its
 * Stripe account first, so the session's payment is a PaymentIntent.
 */
async function lampShop(
  t: Parameters<typeof startStripeServer>[0],
  options: { workers: Array<'sync' | 'webhooks'>; env?: Record<string, string>; shop?: Record<string, unknown>; paidByStripe?: boolean }
) {
  const stripe = await startStripeServer(t);
  stripe.taxRates.set('US-NY', { rate: 888, name: 'NY State Sales Tax' });
  const app = await buildApp(t, { workers: options.workers, env: { STRIPE_API_URL: stripe.url, ...options.env } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { taxProvider: 'stripe_tax', ...options.shop });
  const accountId = options.paidByStripe ? await connectStripe(app, stripe, owner) : null;
  const created = await createProduct(app, owner, { title: 'Lamp', status: 'active', variants: [{ title: 'Default', sku: 'LAMP', price: 4999, inventoryQuantity: 10 }] });
  const variantId = (created as { variants: Array<{ id: string }> }).variants[0]!.id;
  const address = { ...ADDRESS, city: 'New York', region: 'NY', postalCode: '10001' };
  const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId, quantity: 2 }] }, ...sf(owner) });
  const cartId = cart.body.data.cart.id as string;
  await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload: { shippingMethodId: methodsOf(owner).express }, ...sf(owner) });
  const opened = await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/checkout-session`, payload: { email: 'ny@example.com', shippingAddress: address }, ...sf(owner) });
  if (opened.status !== 201) throw new Error(`checkout session: ${opened.status} ${opened.raw}`);
  return { stripe, app, owner, accountId: accountId!, variantId, opened };
}

t.test('stripe_tax: calculation, transaction, reversal; outage and timeout fail the checkout cleanly', async (t) => {
  const stripe = await startStripeServer(t);
  stripe.taxRates.set('US-NY', { rate: 888, name: 'NY State Sales Tax' });
  const app = await buildApp(t, { env: { STRIPE_API_URL: stripe.url, TAX_PROVIDER_TIMEOUT_MS: '300' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { taxProvider: 'stripe_tax' });
  const created = await createProduct(app, owner, { title: 'Lamp', status: 'active', variants: [{ title: 'Default', sku: 'LAMP', price: 4999, inventoryQuantity: 10 }] });
  const variantId = (created as { variants: Array<{ id: string }> }).variants[0]!.id;
  const address = { ...ADDRESS, city: 'New York', region: 'NY', postalCode: '10001' };

  const openCart = async () => {
    const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId, quantity: 2 }] }, ...sf(owner) });
    const cartId = cart.body.data.cart.id as string;
    await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload: { shippingMethodId: methodsOf(owner).express }, ...sf(owner) });
    return cartId;
  };
  const session = (cartId: string) =>
    app.request({ method: 'POST', url: `/storefront/carts/${cartId}/checkout-session`, payload: { email: 'ny@example.com', shippingAddress: address }, ...sf(owner) });

  // Stripe down: 503 with the clear code, the stock not held, no session.
  const downCart = await openCart();
  stripe.failing = true;
  const down = await session(downCart);
  stripe.failing = false;
  t.equal(down.status, 503, down.raw);
  t.equal(down.body.error.code, 'tax_provider_unavailable');
  // Stripe hangs: the call gives up after TAX_PROVIDER_TIMEOUT_MS, same answer.
  stripe.hangingTax = true;
  const startedAt = Date.now();
  const hung = await session(downCart);
  stripe.hangingTax = false;
  t.equal(hung.status, 503, hung.raw);
  t.equal(hung.body.error.code, 'tax_provider_unavailable');
  t.ok(Date.now() - startedAt < 5_000, 'the checkout waited for the timeout, not for ever');
  t.equal(await app.ctx.db('checkoutSessions').where({ storeId: owner.store.id }).count<{ count: string }[]>('* as count').then((rows) => Number(rows[0]!.count)), 0, 'no session was opened');

  // Stripe answers: 2 × 4999 = 9998 at 8.88 % = 887.8224 -> 888; shipping 1500 at 8.88 % = 133.2 -> 133.
  const opened = await session(downCart);
  t.equal(opened.status, 201, opened.raw);
  const calc = stripe.requests.filter((r) => r.path === '/v1/tax/calculations').at(-1)!;
  t.match(calc.body, { currency: 'usd', customer_details: { address: { country: 'US', state: 'NY', postal_code: '10001' } }, shipping_cost: { amount: '1500', tax_behavior: 'exclusive' } });
  t.match(opened.body.data.cart, { subtotal: 9998, shippingTotal: 1500, taxTotal: 1021, total: 12519 });
  t.same(opened.body.data.cart.items[0].taxLines, [{ name: 'NY State Sales Tax', rate: 888, amount: 888, jurisdiction: 'US-NY' }]);
  t.equal(opened.body.data.checkoutSession.amount, 12519, 'the taxed total is what is charged');

  const confirmed = await app.request({ method: 'POST', url: `/storefront/checkout-sessions/${opened.body.data.checkoutSession.id}/confirm`, ...sf(owner) });
  t.equal(confirmed.status, 200, confirmed.raw);
  const order = confirmed.body.data.order;
  t.match(order, { taxTotal: 1021, total: 12519 });
  const row = await app.ctx.db('orders').where({ storeId: owner.store.id, id: order.id }).first('taxProvider', 'taxReference', 'taxTransactionId');
  t.equal(row.taxProvider, 'stripe_tax');
  t.match(row.taxReference, /^taxcalc_/);
  const transaction = stripe.taxTransactions.get(row.taxTransactionId);
  t.ok(transaction, 'a tax transaction was recorded from the calculation');
  t.equal(transaction!.calculation, row.taxReference);

  await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: {}, ...admin(owner) });
  const refund = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { items: [{ orderItemId: order.items[0].id, quantity: 1 }], reason: 'test', notifyCustomer: false }, ...admin(owner) });
  t.equal(refund.status, 201, refund.raw);
  // One lamp: 4999 plus half the line's 888 of tax = 444.
  t.match(refund.body.data.refund, { amount: 5443, taxAmount: 444 });
  t.same(transaction!.reversals.map((r) => r.flatAmount), [-5443], 'the refund reversed its amount of the tax transaction');
});

t.test('stripe_tax: a transaction or reversal Stripe refused is retried by the tax-sync job until it is recorded, once', async (t) => {
  const { app, owner, stripe, opened } = await lampShop(t, { workers: ['sync'], env: { TAX_PROVIDER_TIMEOUT_MS: '2000' } });

  const queue = app.ctx.queues.get('sync');

  stripe.failingTaxTransactions = true;
  const confirmed = await app.request({ method: 'POST', url: `/storefront/checkout-sessions/${opened.body.data.checkoutSession.id}/confirm`, ...sf(owner) });
  t.equal(confirmed.status, 200, 'the order is placed though Stripe refused its tax transaction');
  const order = confirmed.body.data.order;
  const transactionOf = async () => (await app.ctx.db('orders').where({ storeId: owner.store.id, id: order.id }).first('taxTransactionId')).taxTransactionId as string | null;
  t.equal(await transactionOf(), null, 'no transaction yet');
  t.equal(await retryNow(queue, `tax-transaction-${order.id}`), 'delayed', 'a retry while Stripe still refuses waits for the next');
  t.equal(await transactionOf(), null, 'and leaves it unrecorded');
  stripe.failingTaxTransactions = false;
  t.equal(await retryNow(queue, `tax-transaction-${order.id}`), 'completed');
  await until('the transaction is recorded', async () => (await transactionOf()) !== null);
  const recorded = [...stripe.taxTransactions.values()].filter((transaction) => transaction.reference === `order-${order.id}`);
  t.equal(recorded.length, 1, 'one transaction at Stripe for the order, after two refused attempts and one that went through');

  await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: {}, ...admin(owner) });
  stripe.failingTaxTransactions = true;
  const refund = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { items: [{ orderItemId: order.items[0].id, quantity: 1 }], reason: 'test', notifyCustomer: false }, ...admin(owner) });
  t.equal(refund.status, 201, 'the refund stands though Stripe refused its reversal');
  const transaction = stripe.taxTransactions.get((await transactionOf())!)!;
  t.same(transaction.reversals, [], 'no reversal yet');
  t.equal(await retryNow(queue, `tax-reversal-${refund.body.data.refund.id}`), 'delayed', 'refused again while Stripe refuses');
  stripe.failingTaxTransactions = false;
  t.equal(await retryNow(queue, `tax-reversal-${refund.body.data.refund.id}`), 'completed');
  await until('the reversal is recorded', async () => transaction.reversals.length > 0);
  t.same(transaction.reversals.map((reversal) => reversal.flatAmount), [-5443], 'the refund reversed its amount, once');
});

t.test('stripe_tax: an edit records the order again: the old transaction reversed in full, a new one from the edit\'s calculation less the refunds, retried by tax-sync, once', async (t) => {
  const { app, owner, stripe, opened, variantId } = await lampShop(t, { workers: ['sync'], env: { TAX_PROVIDER_TIMEOUT_MS: '2000' } });
  const queue = app.ctx.queues.get('sync');

  const confirmed = await app.request({ method: 'POST', url: `/storefront/checkout-sessions/${opened.body.data.checkoutSession.id}/confirm`, ...sf(owner) });
  t.equal(confirmed.status, 200, confirmed.raw);
  const order = confirmed.body.data.order;
  const stateOf = async () => (await app.ctx.db('orders').where({ storeId: owner.store.id, id: order.id }).first('taxTransactionId', 'taxReference')) as { taxTransactionId: string | null; taxReference: string };
  const placed = await stateOf();
  t.ok(placed.taxTransactionId, 'recorded when placed');
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: {}, ...admin(owner) })).status, 200);
  const refund = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { items: [{ orderItemId: order.items[0].id, quantity: 1 }], reason: 'one broke', notifyCustomer: false }, ...admin(owner) });
  t.equal(refund.status, 201, refund.raw);
  const first = stripe.taxTransactions.get(placed.taxTransactionId!)!;
  t.same(first.reversals.map((r) => r.flatAmount), [-5443]);

  // The edit adds a lamp (a new calculation); Stripe Tax refuses transactions for now: the edit stands.
  stripe.failingTaxTransactions = true;
  const edited = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/edits`, payload: { add: [{ variantId, quantity: 1 }], collect: 'mark_paid' }, ...admin(owner) });
  t.equal(edited.status, 201, edited.raw);
  const after = await stateOf();
  t.not(after.taxReference, placed.taxReference, 'the order keeps the edit\'s calculation');
  t.equal(after.taxTransactionId, placed.taxTransactionId, 'still the old transaction while Stripe refuses');
  const jobId = `tax-transaction-${order.id}-${after.taxReference}`;
  t.equal(await retryNow(queue, jobId), 'delayed', 'retried while Stripe refuses');
  stripe.failingTaxTransactions = false;
  t.equal(await retryNow(queue, jobId), 'completed');
  await until('the new transaction is recorded', async () => (await stateOf()).taxTransactionId !== placed.taxTransactionId);
  const now = await stateOf();
  const second = stripe.taxTransactions.get(now.taxTransactionId!)!;
  t.equal(second.calculation, after.taxReference, 'recorded from the edit\'s calculation');
  t.same(first.reversals.map((r) => r.mode), ['partial', 'full'], 'the old transaction: the refund, then reversed in full once');
  t.same(second.reversals.map((r) => r.flatAmount), [-5443], 'the refund given back again on the new one');
  t.equal([...stripe.taxTransactions.values()].filter((txn) => txn.reference === `order-${order.id}-${after.taxReference}`).length, 1, 'one new transaction after a refused attempt and one that went through');
  // Syncing again changes nothing; a later refund reverses the new transaction.
  const again = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { amount: 100, reason: 'goodwill', notifyCustomer: false }, ...admin(owner) });
  t.equal(again.status, 201, again.raw);
  t.same(second.reversals.map((r) => r.flatAmount), [-5443, -100]);
  t.equal(first.reversals.length, 2, 'the old one is left alone');
});

t.test('stripe_tax: a refund whose reversal is still queued when the order is edited is taken off the new transaction once', async (t) => {
  const { app, owner, stripe, opened, variantId } = await lampShop(t, { workers: ['sync'], env: { TAX_PROVIDER_TIMEOUT_MS: '2000' } });
  const queue = app.ctx.queues.get('sync');
  const waitFor = async (what: string, check: () => Promise<boolean>) => {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`never: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const confirmed = await app.request({ method: 'POST', url: `/storefront/checkout-sessions/${opened.body.data.checkoutSession.id}/confirm`, ...sf(owner) });
  t.equal(confirmed.status, 200, confirmed.raw);
  const order = confirmed.body.data.order;
  const stateOf = async () => (await app.ctx.db('orders').where({ storeId: owner.store.id, id: order.id }).first('taxTransactionId', 'taxReference')) as { taxTransactionId: string | null; taxReference: string };
  const placed = await stateOf();
  t.ok(placed.taxTransactionId, 'recorded when placed');
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: {}, ...admin(owner) })).status, 200);

  // The refund's reversal is refused: it waits in the tax-sync job (30 s backoff).
  stripe.failingTaxTransactions = true;
  const refund = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { items: [{ orderItemId: order.items[0].id, quantity: 1 }], reason: 'one broke', notifyCustomer: false }, ...admin(owner) });
  t.equal(refund.status, 201, refund.raw);
  const reversalJob = `tax-reversal-${refund.body.data.refund.id}`;
  await waitFor('the reversal waits for a retry', async () => (await (await queue.getJob(reversalJob))?.getState()) === 'delayed');
  const first = stripe.taxTransactions.get(placed.taxTransactionId!)!;
  t.same(first.reversals, [], 'nothing reversed yet');

  // Stripe answers again; the order is edited before the queued reversal runs: the transaction is
  // replaced at once, the refund taken off the new one.
  stripe.failingTaxTransactions = false;
  const edited = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/edits`, payload: { add: [{ variantId, quantity: 1 }], collect: 'mark_paid' }, ...admin(owner) });
  t.equal(edited.status, 201, edited.raw);
  const now = await stateOf();
  t.not(now.taxTransactionId, placed.taxTransactionId, 'the transaction was replaced with the edit');
  const second = stripe.taxTransactions.get(now.taxTransactionId!)!;
  t.same(second.reversals.map((r) => r.flatAmount), [-5443], 'the refund is taken off the new transaction');

  // Then the queued reversal runs: the new transaction already gives the refund back.
  await (await queue.getJob(reversalJob))!.promote();
  await waitFor('the queued reversal ran', async () => (await (await queue.getJob(reversalJob))?.getState()) === 'completed');
  t.same(second.reversals.map((r) => r.flatAmount), [-5443], 'the refund is subtracted once, not twice');
  t.same(first.reversals.map((r) => r.mode), ['full'], 'the old transaction: reversed in full, once');
  // A later refund still reverses the new transaction.
  const again = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { amount: 100, reason: 'goodwill', notifyCustomer: false }, ...admin(owner) });
  t.equal(again.status, 201, again.raw);
  t.same(second.reversals.map((r) => r.flatAmount), [-5443, -100]);
});

t.test("stripe_tax: a refund made in Stripe's dashboard gives back its share of the tax, on the refund (the report) and as a reversal of the transaction", async (t) => {
  const { app, owner, stripe, accountId, opened } = await lampShop(t, { workers: ['webhooks'], env: { STRIPE_WEBHOOK_DELAY_MS: '0' }, shop: { manualPaymentsEnabled: false }, paidByStripe: true });
  const intent = [...stripe.intents.keys()].pop()!;
  stripe.setIntentStatus(intent, 'succeeded');
  const confirmed = await app.request({ method: 'POST', url: `/storefront/checkout-sessions/${opened.body.data.checkoutSession.id}/confirm`, ...sf(owner) });
  t.equal(confirmed.status, 200, confirmed.raw);
  const order = confirmed.body.data.order;
  t.match(order, { taxTotal: 1021, total: 12519 });
  const { taxTransactionId } = await app.ctx.db('orders').where({ storeId: owner.store.id, id: order.id }).first('taxTransactionId');
  t.ok(taxTransactionId, 'the order is recorded with Stripe Tax');

  // 5000 refunded in the dashboard: 5000 x 1021 / 12519 = 407.8 -> 408 of tax.
  const dashboard = stripe.dashboardRefund(intent, 5000);
  const reported = stripeEvent('refund.created', { ...dashboard }, accountId);
  await deliverStripeEvent(app, reported);
  t.match(await stripeEventHandled(app, reported.id), { status: 'processed' });
  const [row] = await app.ctx.db('orderRefunds').where({ storeId: owner.store.id, orderId: order.id });
  t.match(row, { source: 'stripe', status: 'succeeded', amount: '5000', taxAmount: '408' }, 'the refund gives back its share of the tax');
  t.same(row.taxLines, [{ name: 'NY State Sales Tax', rate: 888, amount: 408, jurisdiction: 'US-NY' }]);
  await until('the reversal', async () => (stripe.taxTransactions.get(taxTransactionId)?.reversals.length ?? 0) > 0);
  t.same(stripe.taxTransactions.get(taxTransactionId)!.reversals.map((r) => r.flatAmount), [-5000], 'and leaves the tax transaction as our own refunds do');

  // An admin refund of the rest gives back only the tax left: never more than was collected.
  const rest = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { amount: 12519 - 5000, reason: 'rest', notifyCustomer: false }, ...admin(owner) });
  t.equal(rest.status, 201, rest.raw);
  t.equal(rest.body.data.refund.taxAmount, 1021 - 408, 'the two refunds give back the 1021 collected, to the cent');
});
