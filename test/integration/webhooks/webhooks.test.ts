import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import t from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { settled } from '../../helpers/jobs.js';
import { startReceiver, waitFor } from '../../helpers/webhook-receiver.js';

// Real receivers, retries and a 10 s hang: more than the default 120 s per file on a busy machine.
t.setTimeout(300_000);

type Verify = (secret: string, header: string, rawBody: string) => boolean;

/** The documentation's own snippet (docs/webhooks.md), run as written. */
function documentedVerifier(): Verify {
  const doc = readFileSync('docs/webhooks.md', 'utf8');
  const block = /```js\n([\s\S]*?verifyShopwrightSignature[\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('no signature snippet in docs/webhooks.md');
  const code = block[1]!.replace(/^ {2}/gm, '');
  return new Function('require', `${code}\nreturn verifyShopwrightSignature;`)(createRequire(import.meta.url)) as Verify;
}

const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });

async function subscribe(app: TestApp, owner: Owner, url: string, topics: string[]) {
  const created = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url, topics }, ...admin(owner) });
  if (created.status !== 201) throw new Error(`subscribe: ${created.status} ${created.raw}`);
  return created.body.data as { webhook: { id: string }; secret: string };
}

const deliveriesOf = async (app: TestApp, owner: Owner, webhookId: string) =>
  (await app.request({ url: `/admin/store/webhooks/${webhookId}/deliveries`, ...admin(owner) })).body.data.deliveries as Array<Record<string, any>>;

// One app with the webhooks worker for the delivery tests that want the same settings (issue #32: each
// app costs a cloned database and a server); each signs up its own store and listens with its own
// receiver. The URL test (private hosts refused, a setting it flips) and the hang test (another
// retry delay) build their own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t, { workers: ['webhooks'], env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '50', OUTBOX_POLL_MS: '100' } });
});

t.test('webhook URLs: https on public addresses only, unless the local-testing flag; never link-local', async (t) => {
  const app = await buildApp(t, { env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'false' } });
  const owner = await signupOwner(app);
  const post = (url: string) => app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url, topics: ['order.created'] }, ...admin(owner) });
  for (const url of ['http://example.com/hook', 'https://127.0.0.1/hook', 'https://10.1.2.3/hook', 'https://169.254.169.254/latest', 'https://[::1]/hook', 'https://user:pw@example.com/']) {
    const refused = await post(url);
    t.equal(refused.status, 422, `${url} refused`);
    t.equal(refused.body.error.details[0].path, 'url');
  }
  t.equal((await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: 'https://93.184.216.34/h', topics: ['nope'] }, ...admin(owner) })).status, 422, 'unknown topic');
  const ok = await post('https://93.184.216.34/hook');
  t.equal(ok.status, 201, 'a public address is fine');
  t.match(ok.body.data.secret, /^whsec_/);
  const stored = await app.ctx.db('webhookSubscriptions').where({ id: ok.body.data.webhook.id }).first();
  t.notOk(JSON.stringify(stored).includes(ok.body.data.secret), 'the secret is encrypted at rest');

  app.ctx.config.webhooks.allowPrivateHosts = true;
  t.equal((await post('http://127.0.0.1:9/hook')).status, 201, 'the flag allows http and loopback');
  t.equal((await post('http://169.254.169.254/latest')).status, 422, 'never the metadata address');
  const other = await signupOwner(app);
  t.equal((await app.request({ url: `/admin/store/webhooks/${ok.body.data.webhook.id}`, ...admin(other) })).status, 404, "another store's subscription");
});

t.test('deliveries: signed, retried with the same event id until one success, logged, redeliverable', async (t) => {
  const verify = documentedVerifier();
  const owner = await signupOwner(app);
  const big = 'x'.repeat(5000);
  const receiver = await startReceiver(t, (n) => (n < 3 ? { status: 500, body: 'not yet' } : { status: 200, body: big }));
  const { webhook, secret } = await subscribe(app, owner, receiver.url, ['product.created', 'product.updated']);

  const product = await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Hooked', variants: [{ price: 1200 }] }, ...admin(owner) });
  t.equal(product.status, 201);
  const productId = product.body.data.product.id;
  const [delivery] = await waitFor('a successful delivery', async () => {
    const list = await deliveriesOf(app, owner, webhook.id);
    return list.length && list[0]!.status === 'succeeded' ? list : null;
  });
  t.equal(receiver.received.length, 4, 'three failures, then one success');
  const ids = new Set(receiver.received.map((r) => r.headers['shopwright-event-id']));
  t.equal(ids.size, 1, 'the same event id on every attempt');
  t.equal(new Set(receiver.received.map((r) => r.body)).size, 1, 'the same body on every attempt');
  for (const request of receiver.received) t.ok(verify(secret, request.headers['shopwright-signature'] as string, request.body), 'the documented snippet verifies it');
  t.notOk(verify('whsec_wrong', receiver.received[0]!.headers['shopwright-signature'] as string, receiver.received[0]!.body), 'and refuses another secret');
  const body = JSON.parse(receiver.received[0]!.body);
  t.same(Object.keys(body).sort(), ['createdAt', 'data', 'id', 'storeId', 'topic', 'version']);
  t.match(body, { id: [...ids][0], topic: 'product.created', storeId: owner.store.id, data: { id: productId, title: 'Hooked', variants: [{ price: 1200 }] } });
  t.equal(receiver.received[0]!.headers['shopwright-topic'], 'product.created');
  t.match(delivery, { eventId: body.id, topic: 'product.created', attempts: 4, lastStatusCode: 200, status: 'succeeded', nextRetryAt: null });
  t.ok(delivery!.responseBody.length <= 1024, 'the answer is kept cut to 1 KB');

  // A later change of the same product carries a higher version.
  await app.request({ method: 'PATCH', url: `/admin/products/${productId}`, payload: { title: 'Hooked again' }, ...admin(owner) });
  await waitFor('the update', () => receiver.received.find((r) => r.headers['shopwright-topic'] === 'product.updated'));
  const update = JSON.parse(receiver.received.find((r) => r.headers['shopwright-topic'] === 'product.updated')!.body);
  t.ok(update.version > body.version, `versions grow per resource (${body.version} -> ${update.version})`);
  t.equal(update.data.title, 'Hooked again');

  // Redeliver: the same event (id and body) again, as a new logged delivery.
  const before = receiver.received.length;
  const redelivered = await app.request({ method: 'POST', url: `/admin/store/webhooks/${webhook.id}/deliveries/${delivery!.id}/redeliver`, ...admin(owner) });
  t.equal(redelivered.status, 202);
  t.equal(redelivered.body.data.delivery.eventId, body.id);
  await waitFor('the redelivery', () => receiver.received.length > before);
  t.equal(receiver.received[before]!.body, receiver.received[0]!.body, 'byte for byte the same event');

  // Rotation: both secrets sign during the grace period.
  const rotated = await app.request({ method: 'POST', url: `/admin/store/webhooks/${webhook.id}/rotate-secret`, ...admin(owner) });
  t.equal(rotated.status, 200);
  t.not(rotated.body.data.secret, secret);
  t.ok(rotated.body.data.webhook.previousSecretExpiresAt);
  const ping = await app.request({ method: 'POST', url: `/admin/store/webhooks/${webhook.id}/ping`, ...admin(owner) });
  t.equal(ping.status, 202);
  const pinged = await waitFor('the ping', () => receiver.received.find((r) => r.headers['shopwright-topic'] === 'ping'));
  const header = pinged.headers['shopwright-signature'] as string;
  t.equal(header.split(',').filter((part) => part.startsWith('v1=')).length, 2, 'two signatures');
  t.ok(verify(rotated.body.data.secret, header, pinged.body), 'the new secret verifies');
  t.ok(verify(secret, header, pinged.body), 'the old one still does');

  const foreign = await signupOwner(app);
  t.equal((await app.request({ url: `/admin/store/webhooks/${webhook.id}/deliveries`, ...admin(foreign) })).status, 404);
  t.equal((await app.request({ method: 'POST', url: `/admin/store/webhooks/${webhook.id}/deliveries/${delivery!.id}/redeliver`, ...admin(foreign) })).status, 404);
});

t.test('a 4xx answer is final; an endpoint failing for 3 days is disabled and its owner emailed', async (t) => {
  const owner = await signupOwner(app);
  const refusing = await startReceiver(t, () => ({ status: 410, body: 'gone' }));
  const { webhook } = await subscribe(app, owner, refusing.url, ['product.created']);
  await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Refused' }, ...admin(owner) });
  const [failed] = await waitFor('a failed delivery', async () => {
    const list = await deliveriesOf(app, owner, webhook.id);
    return list[0]?.status === 'failed' ? list : null;
  });
  t.match(failed, { attempts: 1, lastStatusCode: 410, responseBody: 'gone' });
  t.equal(refusing.received.length, 1, 'no retry after a 4xx');

  const flaky = await startReceiver(t, () => ({ status: 503 }));
  const second = await subscribe(app, owner, flaky.url, ['product.updated']);
  // Failing since long ago (3 days at this test's scale is 50 ms × 25920 ≈ 22 min).
  await app.ctx.db('webhookSubscriptions').where({ id: second.webhook.id }).update({ failingSince: new Date(Date.now() - 3 * 24 * 3600 * 1000) });
  const ping = await app.request({ method: 'POST', url: `/admin/store/webhooks/${second.webhook.id}/ping`, ...admin(owner) });
  t.equal(ping.status, 202);
  const disabled = await waitFor('the endpoint disabled', async () => {
    const row = (await app.request({ url: `/admin/store/webhooks/${second.webhook.id}`, ...admin(owner) })).body.data.webhook;
    return row.enabled ? null : row;
  });
  t.equal(disabled.disabledReason, 'failing for 3 days');
  const mail = await app.ctx.db('emailLog').where({ storeId: owner.store.id, toEmail: owner.email }).first();
  t.ok(mail, 'the owner is emailed');
  const enabled = await app.request({ method: 'PATCH', url: `/admin/store/webhooks/${second.webhook.id}`, payload: { enabled: true }, ...admin(owner) });
  t.match(enabled.body.data.webhook, { enabled: true, failingSince: null, disabledReason: null });
  t.equal((await app.request({ method: 'DELETE', url: `/admin/store/webhooks/${second.webhook.id}`, ...admin(owner) })).status, 200);
  t.equal((await app.request({ url: `/admin/store/webhooks/${second.webhook.id}`, ...admin(owner) })).status, 404);
});

t.test("a receiver that hangs does not delay another store's deliveries", async (t) => {
  const app = await buildApp(t, { workers: ['webhooks'], env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '60000', OUTBOX_POLL_MS: '100' } });
  const slowStore = await signupOwner(app);
  const fastStore = await signupOwner(app);
  const hanging = await startReceiver(t, () => 'hang');
  const quick = await startReceiver(t);
  const slow = await subscribe(app, slowStore, hanging.url, ['product.created']);
  const fast = await subscribe(app, fastStore, quick.url, ['product.created']);
  for (let i = 0; i < 12; i++) await app.request({ method: 'POST', url: `/admin/store/webhooks/${slow.webhook.id}/ping`, ...admin(slowStore) });
  await waitFor('the hanging receiver to be busy', () => hanging.received.length >= 4);
  const started = Date.now();
  await app.request({ method: 'POST', url: `/admin/store/webhooks/${fast.webhook.id}/ping`, ...admin(fastStore) });
  await waitFor('the other store delivered', () => quick.received.length === 1, 8_000);
  const took = Date.now() - started;
  t.ok(took < 3_000, `the other store's delivery took ${took} ms`);
  t.ok(hanging.received.length <= 4, `the hanging endpoint has at most its cap in flight (${hanging.received.length})`);
});

t.test('order.fulfilled is sent when an order becomes fully fulfilled, with the order as the admin API shows it', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Shipped', [{ price: 500, stock: 10 }]);
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 2 }]);
  const order = (await confirm(app, owner, session.body.data.checkoutSession.id)).body.data.order;
  const receiver = await startReceiver(t);
  await subscribe(app, owner, receiver.url, ['order.fulfilled']);
  const item = order.items[0];
  const partial = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: { items: [{ orderItemId: item.id, quantity: 1 }] }, ...admin(owner) });
  t.equal(partial.status, 201);
  const rest = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: {}, ...admin(owner) });
  t.equal(rest.status, 201);
  await waitFor('order.fulfilled', () => receiver.received.length >= 1);
  await settled(app, ['webhooks']);
  t.equal(receiver.received.length, 1, 'only the fulfilment that completes the order sends it');
  const body = JSON.parse(receiver.received[0]!.body);
  t.equal(body.topic, 'order.fulfilled');
  t.same(body.data, rest.body.data.order, "the order in the admin API's shape");
});
