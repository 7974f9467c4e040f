import t from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { startReceiver, waitFor } from '../../helpers/webhook-receiver.js';

// Issue #31 item 7 through the API: the guard's classifier (services/address-ranges.ts, unit-tested in
// address-ranges.test.ts) on webhook create, and again when a saved URL is delivered to.

const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });
const create = (app: TestApp, owner: Owner, url: string) =>
  app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url, topics: ['order.created'] }, ...admin(owner) });

t.test('webhook create refuses IPv6 addresses that carry a loopback, private or metadata IPv4 address', async (t) => {
  const app = await buildApp(t, { env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'false' } });
  const owner = await signupOwner(app);
  const refused = [
    'https://[::127.0.0.1]/hook', 'https://[::ffff:0:7f00:1]/hook', 'https://[2002:7f00:1::]/hook', 'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:0:10.0.0.1]/hook', 'https://[2002:c0a8:101::1]/hook', 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
    'https://[64:ff9b::127.0.0.1]/hook', 'https://[64:ff9b:1::a00:1]/hook', 'https://[::ffff:a9fe:a9fe]/latest', 'https://[2002:a9fe:a9fe::]/latest'
  ];
  for (const url of refused) {
    const response = await create(app, owner, url);
    t.equal(response.status, 422, `${url} refused`);
    t.equal(response.body.error?.details?.[0]?.path, 'url');
  }
  const teredoPublic = await create(app, owner, 'https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/hook');
  t.equal(teredoPublic.status, 201, 'a Teredo address of a public client is public');
  const nat64Public = await create(app, owner, 'https://[64:ff9b::808:808]/hook');
  t.equal(nat64Public.status, 201, 'NAT64 of a public address is public');

  app.ctx.config.webhooks.allowPrivateHosts = true;
  for (const url of ['http://[::ffff:a9fe:a9fe]/latest', 'http://[::ffff:0:a9fe:a9fe]/latest', 'http://[2002:a9fe:a9fe::]/latest', 'http://[64:ff9b::a9fe:a9fe]/latest']) {
    t.equal((await create(app, owner, url)).status, 422, `${url}: never the metadata address, flag or not`);
  }
});

t.test('a URL is checked again at delivery: a loopback literal saved while private hosts were allowed is not called', async (t) => {
  const app = await buildApp(t, { workers: ['webhooks'], env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '60000', OUTBOX_POLL_MS: '100' } });
  const owner = await signupOwner(app);
  const receiver = await startReceiver(t);
  // The receiver's 127.0.0.1 written as IPv4-mapped IPv6: a socket to an IP literal skips the name lookup.
  const url = receiver.url.replace('127.0.0.1', '[::ffff:127.0.0.1]');
  const created = await create(app, owner, url);
  t.equal(created.status, 201, created.raw);
  app.ctx.config.webhooks.allowPrivateHosts = false;
  const ping = await app.request({ method: 'POST', url: `/admin/store/webhooks/${created.body.data.webhook.id}/ping`, ...admin(owner) });
  t.equal(ping.status, 202);
  const delivery = await waitFor('the attempt', async () => {
    const [row] = (await app.request({ url: `/admin/store/webhooks/${created.body.data.webhook.id}/deliveries`, ...admin(owner) })).body.data.deliveries;
    return row?.attempts >= 1 && row.status !== 'delivering' ? row : null;
  });
  t.match(delivery, { status: 'pending', lastStatusCode: null, lastError: /private or loopback/ }, 'a failed attempt, retried later');
  t.equal(receiver.received.length, 0, 'nothing reached the receiver');
});
