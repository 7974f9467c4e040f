import t from 'tap';
import type { Job } from 'bullmq';
import * as manualPaymentsMigration from '../../../migrations/20261125003100_manual_payments.js';
import { unpaidOrdersCancelProcessor } from '../../../src/workers/processors/unpaid-orders-cancel.js';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { ADDRESS, confirm, openSession, sellable, setupShop, sf } from '../../helpers/checkout.js';
import { settled } from '../../helpers/jobs.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

const stockOf = async (app: TestApp, variantId: string) => (await app.ctx.db('productVariants').where({ id: variantId }).first('inventoryQuantity')).inventoryQuantity as number;

/** One manual-payment order of `quantity` units, placed `daysAgo` days ago. */
async function placeOrder(app: TestApp, owner: Owner, variantId: string, quantity: number, email: string, daysAgo: number) {
  const { session } = await openSession(app, owner, [{ variantId, quantity }], { email });
  if (session.status !== 201) throw new Error(`session failed: ${session.status} ${session.raw}`);
  const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
  if (confirmed.status !== 200) throw new Error(`confirm failed: ${confirmed.status} ${confirmed.raw}`);
  const order = confirmed.body.data.order as { id: string; number: number; paymentStatus: string; total: number };
  await app.ctx.db('orders').where({ id: order.id }).update({ createdAt: app.ctx.db.raw(`now() - make_interval(days => ?)`, [daysAgo]) });
  return order;
}

const runCancelJob = (app: TestApp) => unpaidOrdersCancelProcessor.process(app.ctx, {} as Job<Record<string, never>>, new AbortController().signal) as Promise<{ cancelled: number }>;

/**
 * One app for the file (issue #32: each app costs a cloned database and a server). Each test signs up
 * its own store, so none sees another's data; the migration test (it takes the schema down and up)
 * and the cancel-job test (its own workers and mail settings, and an app-wide job whose count it
 * checks) build their own.
 */
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('a new store takes manual payments at once; switched off, the refusal names the setting', async (t) => {
  const owner = await signupOwner(app);
  const settings = await app.request({ url: '/admin/store', ...admin(owner) });
  t.match(settings.body.data.store, { manualPaymentsEnabled: true, manualPaymentDays: 7 }, 'the defaults are shown');

  const product = await sellable(app, owner, 'Ebook', [{ price: 900, stock: 3 }]);
  const cart = (await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId: product.variants[0]!.id, quantity: 1 }] }, ...sf(owner) })).body.data.cart.id;
  const checkout = () => app.request({ method: 'POST', url: `/storefront/carts/${cart}/checkout-session`, payload: { email: 'new@example.com', shippingAddress: ADDRESS }, ...sf(owner) });
  const first = await checkout();
  t.equal(first.status, 201, first.raw);
  t.equal(first.body.data.checkoutSession.provider, 'manual', 'no setting patched, no Stripe: manual payments');

  t.equal((await app.request({ method: 'PATCH', url: '/admin/store', payload: { manualPaymentsEnabled: false }, ...admin(owner) })).status, 200);
  const refused = await checkout();
  t.equal(refused.status, 409);
  t.match(refused.body.error.message, /manualPaymentsEnabled/, 'the message says which setting to change');
  t.match(refused.body.error.details, [{ path: 'provider' }, { path: 'manualPaymentsEnabled', message: /false/ }]);
  const stripe = await app.request({
    method: 'POST',
    url: `/storefront/carts/${cart}/checkout-session`,
    payload: { email: 'new@example.com', shippingAddress: ADDRESS, provider: 'stripe' },
    ...sf(owner)
  });
  t.equal(stripe.status, 409);
  t.match(stripe.body.error.message, /Stripe/);
});

t.test('the migration: existing stores keep their setting, new stores accept manual payments', async (t) => {
  const app = await buildApp(t);
  const db = app.ctx.db;
  await manualPaymentsMigration.down(db);
  const [before] = await db('stores').insert({ name: 'Old', slug: 'old-store' }).returning(['id', 'manualPaymentsEnabled']);
  t.equal(before.manualPaymentsEnabled, false, 'the old default');
  const [enabled] = await db('stores').insert({ name: 'Old on', slug: 'old-on', manualPaymentsEnabled: true }).returning('id');
  await manualPaymentsMigration.up(db);
  t.equal((await db('stores').where({ id: before.id }).first()).manualPaymentsEnabled, false, 'an existing store keeps false');
  t.equal((await db('stores').where({ id: enabled.id }).first()).manualPaymentsEnabled, true);
  t.equal((await db('stores').where({ id: before.id }).first()).manualPaymentDays, 7);
  const [fresh] = await db('stores').insert({ name: 'New', slug: 'new-store' }).returning(['manualPaymentsEnabled']);
  t.equal(fresh.manualPaymentsEnabled, true);
});

t.test('manualPaymentDays is validated and shown like the other store settings', async (t) => {
  const owner = await signupOwner(app);
  for (const manualPaymentDays of [0, 366, 1.5, 'soon', null]) {
    const bad = await app.request({ method: 'PATCH', url: '/admin/store', payload: { manualPaymentDays }, ...admin(owner) });
    t.equal(bad.status, 422, JSON.stringify(manualPaymentDays));
    t.match(bad.body.error.details, [{ path: 'manualPaymentDays' }]);
  }
  const patched = await app.request({ method: 'PATCH', url: '/admin/store', payload: { manualPaymentDays: 14 }, ...admin(owner) });
  t.equal(patched.status, 200, patched.raw);
  t.equal(patched.body.data.store.manualPaymentDays, 14);
  t.equal((await app.request({ url: '/admin/store', ...admin(owner) })).body.data.store.manualPaymentDays, 14);
});

t.test('verified reviews need a paid order: an unpaid manual order earns none until the payment is recorded', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Teapot', [{ price: 2500, stock: 10 }]);
  const order = await placeOrder(app, owner, product.variants[0]!.id, 1, 'tea@example.com', 0);
  t.equal(order.paymentStatus, 'pending');
  const review = () =>
    app.request({
      method: 'PUT',
      url: `/storefront/products/${product.slug}/reviews`,
      payload: { orderNumber: order.number, email: 'tea@example.com', rating: 5, title: 'Lovely', body: 'Pours well', authorName: 'T' },
      ...sf(owner)
    });
  const unpaid = await review();
  t.equal(unpaid.status, 422);
  t.equal(unpaid.body.error.code, 'review_not_verified');

  const markPaid = (who: Owner, orderId = order.id) => app.request({ method: 'POST', url: `/admin/orders/${orderId}/mark-paid`, ...admin(who) });
  t.equal((await markPaid(other)).status, 404, "another store's order is not found");
  t.equal((await markPaid(owner, '00000000-0000-4000-8000-000000000000')).status, 404);
  const bodyRefused = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: { paid: true }, ...admin(owner) });
  t.equal(bodyRefused.status, 422, 'the route takes only a reference and a note');
  const paid = await markPaid(owner);
  t.equal(paid.status, 200, paid.raw);
  t.equal(paid.body.data.order.paymentStatus, 'paid');
  const again = await markPaid(owner);
  t.equal(again.status, 409, 'an order already paid cannot be marked paid again');
  t.equal((await app.ctx.db('orders').where({ id: order.id }).first()).paymentStatus, 'paid');

  const verified = await review();
  t.equal(verified.status, 201, verified.raw);
});

t.test('unpaid manual orders past the deadline are cancelled once: stock back, one email; the others are untouched', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app, { storeName: 'Tidy Shop' });
  const patient = await signupOwner(app);
  await setupShop(app, owner);
  await setupShop(app, patient, { manualPaymentDays: 30 });
  const product = await sellable(app, owner, 'Kettle', [{ price: 3000, stock: 20 }]);
  const variantId = product.variants[0]!.id;
  const patientProduct = await sellable(app, patient, 'Kettle', [{ price: 3000, stock: 20 }]);

  const overdue = await placeOrder(app, owner, variantId, 3, 'late@example.com', 8);
  const recent = await placeOrder(app, owner, variantId, 1, 'recent@example.com', 6);
  const paidLate = await placeOrder(app, owner, variantId, 1, 'paid@example.com', 8);
  const shipped = await placeOrder(app, owner, variantId, 1, 'cod@example.com', 8);
  const otherStore = await placeOrder(app, patient, patientProduct.variants[0]!.id, 2, 'patient@example.com', 8);
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${paidLate.id}/mark-paid`, ...admin(owner) })).status, 200);
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${shipped.id}/fulfillments`, payload: { notifyCustomer: false }, ...admin(owner) })).status, 201);
  t.equal(await stockOf(app, variantId), 14);
  const revenueBefore = (await app.request({ url: '/admin/store', ...admin(owner) })).body.data.stats.revenue30d;

  // A retried run, and two runs at once: each order is cancelled once.
  const runs = await Promise.all([runCancelJob(app), runCancelJob(app)]);
  t.equal(runs[0]!.cancelled + runs[1]!.cancelled, 1, 'one order cancelled between the concurrent runs');
  t.same(await runCancelJob(app), { cancelled: 0 }, 'a retry finds nothing left to do');

  const orderOf = async (id: string, who = owner) => (await app.request({ url: `/admin/orders/${id}`, ...admin(who) })).body.data.order;
  t.match(await orderOf(overdue.id), { status: 'cancelled', paymentStatus: 'failed' });
  t.equal(await stockOf(app, variantId), 17, 'its 3 units are back in stock');
  const ledger = await app.ctx.db('inventoryLedger').where({ variantId, reason: `order #${overdue.number} cancelled unpaid` });
  t.match(ledger, [{ delta: 3, quantityAfter: 17 }]);
  t.match(await orderOf(recent.id), { status: 'open', paymentStatus: 'pending' }, 'within the deadline: untouched');
  t.match(await orderOf(paidLate.id), { status: 'open', paymentStatus: 'paid' }, 'paid: untouched');
  t.match(await orderOf(shipped.id), { status: 'completed', paymentStatus: 'pending' }, 'shipped (cash on delivery): untouched');
  t.match(await orderOf(otherStore.id, patient), { status: 'open', paymentStatus: 'pending' }, "another store's longer deadline is honoured");
  t.equal(await stockOf(app, patientProduct.variants[0]!.id), 18);
  const revenueAfter = (await app.request({ url: '/admin/store', ...admin(owner) })).body.data.stats.revenue30d;
  t.equal(revenueAfter, revenueBefore - overdue.total, 'the cancelled order left the revenue');

  const mail = await smtp.waitFor((m) => m.envelopeTo.includes('late@example.com') && /cancelled/.test(m.parsed.subject ?? ''));
  t.match(mail.parsed.subject, new RegExp(`Order #${overdue.number} at Tidy Shop was cancelled`));
  t.match(mail.parsed.text, /did not receive its payment within 7 days/);
  t.match(mail.parsed.text, /3 x Kettle/);
  await settled(app, ['email']);
  t.equal(smtp.messages.filter((m) => /cancelled/.test(m.parsed.subject ?? '')).length, 1, 'exactly one cancellation email');
  t.equal((await app.ctx.db('emailLog').where({ templateKey: 'order_cancelled' })).length, 1);

  // A cancelled order can no longer be paid, shipped or reviewed.
  const payCancelled = await app.request({ method: 'POST', url: `/admin/orders/${overdue.id}/mark-paid`, ...admin(owner) });
  t.equal(payCancelled.status, 409);
  t.match(payCancelled.body.error.message, /cancelled/);
  const shipCancelled = await app.request({ method: 'POST', url: `/admin/orders/${overdue.id}/fulfillments`, payload: {}, ...admin(owner) });
  t.equal(shipCancelled.status, 409);
  t.equal(await stockOf(app, variantId), 17);

  // The store's deadline moves: the order placed 6 days ago is now overdue too.
  t.equal((await app.request({ method: 'PATCH', url: '/admin/store', payload: { manualPaymentDays: 5 }, ...admin(owner) })).status, 200);
  t.same(await runCancelJob(app), { cancelled: 1 });
  t.match(await orderOf(recent.id), { status: 'cancelled' });
  t.equal(await stockOf(app, variantId), 18);
  const second = await smtp.waitFor((m) => m.envelopeTo.includes('recent@example.com') && /cancelled/.test(m.parsed.subject ?? ''));
  t.match(second.parsed.text, /within 5 days/);
});
