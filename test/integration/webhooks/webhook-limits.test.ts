import t from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';

const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });
const create = (app: TestApp, owner: Owner, url: string) =>
  app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url, topics: ['order.created'] }, ...admin(owner) });

// One app for the tests with the default limit (issue #32: each app costs a cloned database and a
// server); each signs up its own store, so none sees another's subscriptions. The test of another
// limit builds its own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t, { env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true' } });
});

t.test('a store has at most 20 subscriptions: the 21st is 409 webhook_limit_reached, also when created at once', async (t) => {
  const owner = await signupOwner(app);
  const ids: string[] = [];
  for (let i = 1; i <= 18; i++) {
    const created = await create(app, owner, `http://127.0.0.1:9/hook${i}`);
    t.equal(created.status, 201, `subscription ${i}`);
    ids.push(created.body.data.webhook.id);
  }
  // Two places left, five asking at once: exactly two get one.
  const racing = await Promise.all([19, 20, 21, 22, 23].map((i) => create(app, owner, `http://127.0.0.1:9/hook${i}`)));
  t.same(racing.map((r) => r.status).sort(), [201, 201, 409, 409, 409], 'two of five concurrent creates fit');
  const refused = racing.find((r) => r.status === 409)!;
  t.equal(refused.body.success, false);
  t.equal(refused.body.error.code, 'webhook_limit_reached');
  t.match(refused.body.error.message, /at most 20/);
  t.equal(refused.body.error.details[0].path, 'url');
  t.equal(await app.ctx.db('webhookSubscriptions').where({ storeId: owner.store.id }).count({ n: '*' }).then(([row]) => Number(row!.n)), 20);

  const disabled = await app.request({ method: 'PATCH', url: `/admin/store/webhooks/${ids[0]}`, payload: { enabled: false }, ...admin(owner) });
  t.equal(disabled.status, 200);
  t.equal((await create(app, owner, 'http://127.0.0.1:9/another')).status, 409, 'a disabled subscription still counts');

  const other = await signupOwner(app);
  t.equal((await create(app, other, 'http://127.0.0.1:9/hook1')).status, 201, 'another store has its own 20');
  t.equal((await app.request({ method: 'DELETE', url: `/admin/store/webhooks/${ids[0]}`, ...admin(owner) })).status, 200);
  t.equal((await create(app, owner, 'http://127.0.0.1:9/another')).status, 201, 'deleting one makes room');

  const documented = (await app.request({ url: '/openapi.json' })).body;
  t.ok(documented.paths['/api/v1/admin/store/webhooks'].post.responses['409'], 'the 409 is in the API document');
  t.ok(documented.components.schemas.ErrorCode.enum.includes('webhook_limit_reached'));
});

t.test('WEBHOOK_MAX_SUBSCRIPTIONS_PER_STORE sets the limit', async (t) => {
  const app = await buildApp(t, { env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_MAX_SUBSCRIPTIONS_PER_STORE: '2' } });
  const owner = await signupOwner(app);
  t.equal((await create(app, owner, 'http://127.0.0.1:9/a')).status, 201);
  t.equal((await create(app, owner, 'http://127.0.0.1:9/b')).status, 201);
  const third = await create(app, owner, 'http://127.0.0.1:9/c');
  t.equal(third.status, 409);
  t.match(third.body.error.message, /at most 2 /);
});

t.test('one subscription per URL in a store: a second is 409 url_taken naming the first', async (t) => {
  const owner = await signupOwner(app);
  const first = await create(app, owner, 'http://127.0.0.1:9/orders');
  t.equal(first.status, 201);
  const firstId = first.body.data.webhook.id as string;

  for (const spelling of ['http://127.0.0.1:9/orders', 'http://127.0.0.1:9/./orders', 'http://127.0.0.1:9/old/../orders']) {
    const duplicate = await create(app, owner, spelling);
    t.equal(duplicate.status, 409, `${spelling} is the same URL`);
    t.equal(duplicate.body.error.code, 'url_taken');
    t.match(duplicate.body.error.message, firstId, 'the message names the existing subscription');
    t.same(duplicate.body.error.details, [{ path: 'url', message: duplicate.body.error.message }]);
  }

  const second = await create(app, owner, 'http://127.0.0.1:9/refunds');
  t.equal(second.status, 201, 'another path is another URL');
  const moved = await app.request({ method: 'PATCH', url: `/admin/store/webhooks/${second.body.data.webhook.id}`, payload: { url: 'http://127.0.0.1:9/orders' }, ...admin(owner) });
  t.equal(moved.status, 409, 'nor may a PATCH take it');
  t.equal(moved.body.error.code, 'url_taken');
  t.match(moved.body.error.message, firstId);
  const same = await app.request({ method: 'PATCH', url: `/admin/store/webhooks/${firstId}`, payload: { url: 'http://127.0.0.1:9/orders', topics: ['order.paid'] }, ...admin(owner) });
  t.equal(same.status, 200, 'a subscription keeps its own URL');

  const racing = await Promise.all([1, 2, 3].map(() => create(app, owner, 'http://127.0.0.1:9/race')));
  t.same(racing.map((r) => r.status).sort(), [201, 409, 409], 'three creates of one URL at once: one subscription');

  const other = await signupOwner(app);
  t.equal((await create(app, other, 'http://127.0.0.1:9/orders')).status, 201, 'another store may send to the same URL');
});
