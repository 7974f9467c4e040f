import { createHmac } from 'node:crypto';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { startReceiver, waitFor } from '../../helpers/webhook-receiver.js';
import { checksummedWebhookKey } from '../../../src/platform/checksum-tokens.js';
import { encryptSecret } from '../../../src/platform/secrets.js';

t.setTimeout(180_000);

const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });

async function subscribe(app: TestApp, owner: Owner, url: string) {
  const created = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url, topics: ['product.created'] }, ...admin(owner) });
  if (created.status !== 201) throw new Error(`subscribe: ${created.status} ${created.raw}`);
  return created.body.data as { webhook: { id: string }; secret: string };
}

const newProduct = (app: TestApp, owner: Owner) => app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Hooked', variants: [{ price: 100 }] }, ...admin(owner) });

// One app with the webhooks worker for the file (issue #32: each app costs a cloned database and a
// server), as every test wanted; each signs up its own store and listens with its own receiver.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t, { workers: ['webhooks'], env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '50', OUTBOX_POLL_MS: '100' } });
});

t.test('deliveries verify with the standardwebhooks library; the older header stays; secrets are whsec_ with a checksum', async (t) => {
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t);
  const { webhook, secret } = await subscribe(app, owner, receiver.url);
  t.match(secret, /^whsec_[A-Za-z0-9+/]{48}$/, 'standard base64 of 36 bytes');
  t.ok(checksummedWebhookKey(secret), 'its CRC32 adds up');
  const typo = secret.slice(0, 10) + (secret[10] === 'A' ? 'B' : 'A') + secret.slice(11);
  t.equal(checksummedWebhookKey(typo), null, 'one changed character breaks the checksum');

  t.equal((await newProduct(app, owner)).status, 201);
  const [delivery] = await waitFor('a delivery', () => (receiver.received.length ? receiver.received : undefined));
  const body = delivery!.body;
  const payload = new Webhook(secret).verify(body, delivery!.headers as Record<string, string>) as { id: string; topic: string };
  t.equal(payload.topic, 'product.created', 'Webhook.verify accepts the delivery');
  t.equal(delivery!.headers['webhook-id'], payload.id, 'webhook-id is the event id');
  t.equal(delivery!.headers['shopwright-event-id'], payload.id);
  t.match(delivery!.headers['shopwright-signature'], /^t=\d+,v1=[0-9a-f]{64}$/, 'the older scheme is still sent');
  t.throws(() => new Webhook(secret).verify(body.replace('product.created', 'product.deleted'), delivery!.headers as Record<string, string>), 'a changed body fails');
  t.throws(() => new Webhook(secret).verify(body, { ...(delivery!.headers as Record<string, string>), 'webhook-id': 'evt_other' }), 'a changed id fails: the id is signed');

  // Rotation: both secrets sign, space-separated, and either verifies.
  const rotated = await app.request({ method: 'POST', url: `/admin/store/webhooks/${webhook.id}/rotate-secret`, ...admin(owner) });
  t.equal(rotated.status, 200, rotated.raw);
  t.equal((await newProduct(app, owner)).status, 201);
  const second = await waitFor('a second delivery', () => receiver.received[1]);
  t.equal(String(second.headers['webhook-signature']).split(' ').length, 2, 'two signatures during the grace period');
  t.ok(new Webhook(rotated.body.data.secret).verify(second.body, second.headers as Record<string, string>), 'the new secret verifies');
  t.ok(new Webhook(secret).verify(second.body, second.headers as Record<string, string>), 'the old one too, during the grace period');
});

t.test('a subscription created before issue #36 keeps its secret: it verifies with format raw', async (t) => {
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t);
  const { webhook } = await subscribe(app, owner, receiver.url);
  const legacy = 'whsec_Q2xhc3NpYy1zZWNyZXQtYmFzZTY0dXJsLWZvcm0tXy0tXy0tX19fXy0';
  await app.ctx.db('webhookSubscriptions').where({ storeId: owner.store.id, id: webhook.id }).update({ secretSealed: encryptSecret(legacy, app.ctx.config.encryptionKey) });
  t.equal((await newProduct(app, owner)).status, 201);
  const delivery = await waitFor('a delivery', () => receiver.received[0]);
  t.ok(new Webhook(legacy, { format: 'raw' }).verify(delivery.body, delivery.headers as Record<string, string>), 'verifies with the secret as raw bytes');
  const [t0, v1] = String(delivery.headers['shopwright-signature']).split(',');
  const expected = createHmac('sha256', legacy).update(`${t0!.slice(2)}.${delivery.body}`).digest('hex');
  t.equal(v1, `v1=${expected}`, 'Shopwright-Signature unchanged for it');
});

t.test('a receiver answering 410 Gone disables its subscription at once', async (t) => {
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t, () => ({ status: 410 }));
  const { webhook } = await subscribe(app, owner, receiver.url);
  t.equal((await newProduct(app, owner)).status, 201);
  const disabled = await waitFor('the subscription disabled', async () => {
    const row = await app.ctx.db('webhookSubscriptions').where({ storeId: owner.store.id, id: webhook.id }).first('enabled', 'disabledReason');
    return row.enabled ? undefined : row;
  });
  t.equal(disabled.disabledReason, 'the receiver answered 410 Gone');
  t.equal(receiver.received.length, 1, 'one attempt, no retry');
  const shown = await app.request({ url: `/admin/store/webhooks/${webhook.id}`, ...admin(owner) });
  t.equal(shown.body.data.webhook.enabled, false);
  const deliveries = await app.request({ url: `/admin/store/webhooks/${webhook.id}/deliveries`, ...admin(owner) });
  t.equal(deliveries.body.data.deliveries[0].status, 'failed');
});
