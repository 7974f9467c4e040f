import t from 'tap';
import { ageOnly } from '../../../src/adapters/queue/postgres.js';
import { webhookDeliveryJob } from '../../../src/jobs/webhook-delivery.js';
import { sweepLostJobRuns } from '../../../src/services/job-history/sweep.js';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { importAndWait, importCsv, settled } from '../../helpers/jobs.js';
import { startReceiver, waitFor, type Received } from '../../helpers/webhook-receiver.js';

// Every topic of issue #25 through the HTTP API, each received by a real local HTTP receiver, with
// `data` compared to what the admin API answers for the resource.
t.setTimeout(300_000);

const ENV = { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '50', OUTBOX_POLL_MS: '100' };
const app = await buildApp(t, { workers: ['webhooks', 'email', 'campaigns', 'imports'], env: ENV });

const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });

/** A store listening to these topics with a receiver of its own. */
async function listening(t: Parameters<typeof startReceiver>[0], topics: string[], owner?: Owner) {
  const store = owner ?? (await signupOwner(app));
  const receiver = await startReceiver(t);
  const created = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: receiver.url, topics }, ...admin(store) });
  if (created.status !== 201) throw new Error(`subscribe: ${created.status} ${created.raw}`);
  return { owner: store, received: receiver.received };
}

const bodies = (received: Received[], topic: string) => received.filter((r) => r.headers['shopwright-topic'] === topic).map((r) => JSON.parse(r.body));

async function received(list: Received[], topic: string, count = 1) {
  await waitFor(`${count} × ${topic}`, () => bodies(list, topic).length >= count);
  return bodies(list, topic);
}

/** A placed manual-payment order (pending) of a one-variant product. */
async function placeOrder(app: TestApp, owner: Owner, stock = 10, quantity = 2) {
  await setupShop(app, owner);
  const product = await sellable(app, owner, `Hooked ${Math.random().toString(36).slice(2, 7)}`, [{ price: 1500, stock }]);
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity }]);
  const placed = await confirm(app, owner, session.body.data.checkoutSession.id);
  if (placed.status !== 200 && placed.status !== 201) throw new Error(`confirm: ${placed.status} ${placed.raw}`);
  return { order: placed.body.data.order, product };
}

const adminOrder = async (owner: Owner, orderId: string) => (await app.request({ url: `/admin/orders/${orderId}`, ...admin(owner) })).body.data.order;
const adminCustomer = async (owner: Owner, customerId: string) => (await app.request({ url: `/admin/customers/${customerId}`, ...admin(owner) })).body.data.customer;

t.test('order.created: written by the checkout statement, with the order as GET /admin/orders/{id} shows it; a store without subscription gets no event', async (t) => {
  const { owner, received: list } = await listening(t, ['order.created', 'order.paid']);
  const { order } = await placeOrder(app, owner);
  const [event] = await received(list, 'order.created');
  t.same(event.data, await adminOrder(owner, order.id), "the admin API's shape, number and timestamps included");
  t.match(event, { topic: 'order.created', storeId: owner.store.id });
  t.type(event.version, 'number');
  await settled(app, ['webhooks']);
  t.equal(bodies(list, 'order.paid').length, 0, 'a pending order is not paid');

  const quiet = await signupOwner(app);
  await placeOrder(app, quiet);
  t.equal(Number((await app.ctx.db('webhookEvents').where({ storeId: quiet.store.id }).count('* as n').first())!.n), 0, 'nothing written for a store that does not listen');
});

t.test('order.paid: marking a manual order paid', async (t) => {
  const { owner, received: list } = await listening(t, ['order.paid']);
  const { order } = await placeOrder(app, owner);
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: { reference: 'BANK-1' }, ...admin(owner) })).status, 200);
  const [event] = await received(list, 'order.paid');
  t.equal(event.data.paymentStatus, 'paid');
  t.same(event.data, await adminOrder(owner, order.id));
});

t.test('order.cancelled: cancelling an order', async (t) => {
  const { owner, received: list } = await listening(t, ['order.cancelled', 'order.created']);
  const { order } = await placeOrder(app, owner);
  const [created] = await received(list, 'order.created');
  const cancel = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/cancel`, payload: { reason: 'customer asked' }, ...admin(owner) });
  t.equal(cancel.status, 200, cancel.raw);
  const [event] = await received(list, 'order.cancelled');
  t.match(event.data, { status: 'cancelled', cancelReason: 'customer asked' });
  t.same(event.data, await adminOrder(owner, order.id));
  t.ok(event.version > created.version, 'a later change of the order carries a higher version');
});

t.test('order.refunded: each refund of a paid order', async (t) => {
  const { owner, received: list } = await listening(t, ['order.refunded']);
  const { order } = await placeOrder(app, owner);
  await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: {}, ...admin(owner) });
  const first = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { amount: 500, reason: 'dented', notifyCustomer: false }, ...admin(owner) });
  t.equal(first.status, 201, first.raw);
  const rest = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/refunds`, payload: { amount: Number(order.total) - 500, reason: 'all of it', notifyCustomer: false }, ...admin(owner) });
  t.equal(rest.status, 201, rest.raw);
  const events = await received(list, 'order.refunded', 2);
  const byVersion = events.sort((a, b) => a.version - b.version);
  t.match(byVersion[0]!.data, { paymentStatus: 'partially_refunded', amountRefunded: 500 });
  t.match(byVersion[1]!.data, { paymentStatus: 'refunded', amountRefunded: Number(order.total) });
  t.same(byVersion[1]!.data, await adminOrder(owner, order.id));
});

t.test('product.deleted: DELETE /admin/products/{id}; an ordered product is refused (archive it instead)', async (t) => {
  const { owner, received: list } = await listening(t, ['product.deleted']);
  const created = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Short-lived', variants: [{ price: 100 }] }, ...admin(owner) });
  const productId = created.body.data.product.id;
  const deleted = await app.request({ method: 'DELETE', url: `/admin/products/${productId}`, ...admin(owner) });
  t.equal(deleted.status, 200, deleted.raw);
  t.same(deleted.body.data, { deleted: true, id: productId });
  t.equal((await app.request({ url: `/admin/products/${productId}`, ...admin(owner) })).status, 404);
  const [event] = await received(list, 'product.deleted');
  t.same(event.data, { id: productId });

  const { product } = await placeOrder(app, owner);
  const refused = await app.request({ method: 'DELETE', url: `/admin/products/${product.id}`, ...admin(owner) });
  t.equal(refused.status, 409);
  t.equal(refused.body.error.code, 'product_in_use');
  t.equal((await app.request({ method: 'DELETE', url: `/admin/products/${productId}`, ...admin(owner) })).status, 404, 'gone is gone');
});

t.test('inventory.low: once when a variant crosses to 5 or fewer (adjustment or checkout), not again while it stays low', async (t) => {
  const { owner, received: list } = await listening(t, ['inventory.low']);
  const product = await sellable(app, owner, 'Dwindling', [{ price: 900, stock: 7 }]);
  const variantId = product.variants[0]!.id;
  const adjust = (delta: number) => app.request({ method: 'POST', url: `/admin/products/${product.id}/variants/${variantId}/inventory`, payload: { delta }, ...admin(owner) });
  t.equal((await adjust(-1)).status, 200, '7 -> 6: not low');
  const crossed = await adjust(-2);
  t.equal(crossed.status, 200, '6 -> 4: low');
  const [event] = await received(list, 'inventory.low');
  t.match(event.data, { id: variantId, productId: product.id, inventoryQuantity: 4, lowStockThreshold: 5, inventoryPolicy: 'deny', available: true });
  const variant = crossed.body.data.variant;
  for (const key of Object.keys(variant)) t.same(event.data[key], variant[key], `${key} as the admin API shows it`);
  t.equal((await adjust(-1)).status, 200, '4 -> 3: still low');
  t.equal((await adjust(10)).status, 200, '3 -> 13: back up');
  // A checkout session taking 8 of 13 crosses again.
  await setupShop(app, owner);
  await openSession(app, owner, [{ variantId, quantity: 8 }]);
  await received(list, 'inventory.low', 2);
  await settled(app, ['webhooks']);
  t.equal(bodies(list, 'inventory.low').length, 2, 'one event per crossing');
  t.equal(bodies(list, 'inventory.low')[1].data.inventoryQuantity, 5);

  const delivery = await app.ctx.db('webhookDeliveries').where({ storeId: owner.store.id }).first('id');
  const jobs = await app.ctx.queues.get('webhooks').getJobs(['completed', 'waiting', 'active', 'delayed']);
  const job = jobs.find((j) => j?.data?.deliveryId === delivery.id);
  t.ok(job, 'the trigger queued a delivery job');
  // The PostgreSQL queue keeps finished jobs by age alone (adapters/queue/postgres.ts, ageOnly).
  const expected = app.ctx.backends.queue.kind === 'postgres' ? ageOnly(webhookDeliveryJob.options) : webhookDeliveryJob.options;
  t.same(job!.opts.removeOnComplete, expected!.removeOnComplete, 'kept as the backend keeps finished jobs');
  t.match(job!.opts, expected, "with the webhook-delivery job's options");
});

t.test('customer.created / customer.updated: storefront newsletter sign-up, then an admin edit', async (t) => {
  const { owner, received: list } = await listening(t, ['customer.created', 'customer.updated']);
  await app.request({ method: 'PATCH', url: '/admin/store', payload: { newsletterDoubleOptIn: false }, ...admin(owner) });
  const signup = await app.request({ method: 'POST', url: '/storefront/newsletter/subscribe', payload: { email: 'Nora@Example.com', firstName: 'Nora' }, storefrontToken: owner.storefrontToken });
  t.equal(signup.status, 200, signup.raw);
  const [created] = await received(list, 'customer.created');
  t.match(created.data, { email: 'nora@example.com', firstName: 'Nora', emailMarketing: 'subscribed' });
  t.same(created.data, await adminCustomer(owner, created.data.id));
  const patched = await app.request({ method: 'PATCH', url: `/admin/customers/${created.data.id}`, payload: { note: 'VIP', tags: ['vip'] }, ...admin(owner) });
  t.equal(patched.status, 200, patched.raw);
  const [updated] = await received(list, 'customer.updated');
  t.same(updated.data, await adminCustomer(owner, created.data.id));
  t.ok(updated.version > created.version);
});

t.test('customer.created / customer.updated from a CSV import: one event per customer created or changed, none for unchanged rows; job.completed', async (t) => {
  const { owner, received: list } = await listening(t, ['customer.created', 'customer.updated', 'job.completed']);
  await importAndWait(app, owner, 'email,firstName\r\nkeep@example.com,Keep\r\nchange@example.com,Before\r\n');
  await received(list, 'customer.created', 2);
  const job = await importAndWait(app, owner, 'email,firstName,lastName\r\nkeep@example.com,Keep,\r\nchange@example.com,After,\r\nfresh@example.com,Fresh,Face\r\n');
  t.match(job.result, { created: 1, updated: 1, unchanged: 1 });
  const created = await received(list, 'customer.created', 3);
  const [updated] = await received(list, 'customer.updated');
  t.equal(updated.data.firstName, 'After');
  t.same(updated.data, await adminCustomer(owner, updated.data.id), "the SQL-built payload is the admin API's customer");
  const fresh = created.find((event) => event.data.email === 'fresh@example.com');
  t.same(fresh.data, await adminCustomer(owner, fresh.data.id));
  await settled(app, ['webhooks']);
  t.equal(bodies(list, 'customer.updated').length, 1, 'the unchanged row sent nothing');
  const completed = await received(list, 'job.completed', 2);
  const last = completed.find((event) => event.data.id === job.id);
  t.ok(last, 'job.completed for the import');
  t.same(last.data, (await app.request({ url: `/admin/jobs/${job.id}`, ...admin(owner) })).body.data.job);
});

t.test('campaign.sent: a campaign that finished sending', async (t) => {
  const { owner, received: list } = await listening(t, ['campaign.sent']);
  const campaign = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', payload: { subject: 'Hello', text: 'Hi {{ customer.firstName }}' }, ...admin(owner) });
  t.equal(campaign.status, 202, campaign.raw);
  const [event] = await received(list, 'campaign.sent');
  t.match(event.data, { id: campaign.body.data.campaign.id, status: 'sent' });
  t.same(event.data, (await app.request({ url: `/admin/marketing/campaigns/${event.data.id}`, ...admin(owner) })).body.data.campaign);
});

t.test('job.failed: a tracked job that failed for good (its BullMQ job lost, found by the job-runs sweep)', async (t) => {
  // Its own app, with no imports worker: the import's job waits in BullMQ and is removed there.
  const quiet = await buildApp(t, { workers: ['webhooks'], env: ENV });
  const owner = await signupOwner(quiet);
  const receiver = await startReceiver(t);
  await quiet.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: receiver.url, topics: ['job.failed'] }, ...admin(owner) });
  const started = await importCsv(quiet, owner, 'email\r\nlost@example.com\r\n');
  t.equal(started.status, 202);
  const jobId = started.body.data.job.id;
  const queued = await waitFor('the import in BullMQ', () => quiet.ctx.queues.get('imports').getJob(jobId));
  // The relay adds the job to BullMQ before its outbox row's delete commits, and the sweep leaves a
  // run whose outbox row still waits: under load the sweep could look in between and find nothing.
  await waitFor('the outbox row relayed', async () => !(await quiet.ctx.db('outbox').whereRaw('job_id = ?', [jobId]).first()));
  await queued.remove();
  t.same(await sweepLostJobRuns(quiet.ctx, { quietForMs: 0 }), { failed: 1 });
  const [event] = await received(receiver.received, 'job.failed');
  t.match(event.data, { id: jobId, status: 'failed', type: 'customers.import' });
  t.same(event.data, (await quiet.request({ url: `/admin/jobs/${jobId}`, ...admin(owner) })).body.data.job);
});
