import t from 'tap';
import { buildApp, signupOwner, unique, type TestApp } from '../../helpers/app.js';
import { freshMinute } from '../../helpers/rate-window.js';

const validSignup = () => {
  const tag = unique('s');
  return {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: `${tag}@Example.com`,
    password: 'analytical-engine',
    storeName: 'Ada Goods',
    storeSlug: `ada-${tag}`
  };
};

/**
 * One app for the file (issue #32: each app costs a cloned database and a server). Each test signs up
 * with its own emails and slugs and counts only the rows those made, so none sees another's data; the
 * rate-limit test changes the settings and builds its own.
 */
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('signup creates user, store, owner membership and storefront token', async (t) => {
  const body = validSignup();
  const response = await app.request({ method: 'POST', url: '/auth/signup', payload: body });
  t.equal(response.status, 201);
  t.equal(response.body.success, true);
  t.same(response.body.meta, {});
  const data = response.body.data;
  t.match(data.user, { id: String, email: body.email.toLowerCase(), firstName: 'Ada', lastName: 'Lovelace' });
  t.same(Object.keys(data.user).sort(), ['email', 'firstName', 'id', 'lastName']);
  t.match(data.store, { id: String, name: 'Ada Goods', slug: body.storeSlug });
  t.same(data.memberships, [{ storeId: data.store.id, storeName: 'Ada Goods', storeSlug: body.storeSlug, role: 'owner' }]);
  t.match(data.storefrontToken, /^swsf_[A-Za-z0-9_-]{32,}$/);
  t.match(data.accessToken, /^[\w-]+\.[\w-]+\.[\w-]+$/);

  const stored = await app.ctx.db('storefrontTokens').where({ storeId: data.store.id }).first();
  t.not(stored.tokenHash, data.storefrontToken, 'token stored hashed');
  t.notOk(JSON.stringify(stored).includes(data.storefrontToken.slice(5)), 'secret not stored anywhere in the row');
  const user = await app.ctx.db('users').where({ id: data.user.id }).first();
  t.match(user.passwordHash, /^scrypt\$/, 'password hashed with scrypt');

  const me = await app.request({ url: '/auth/me', token: data.accessToken });
  t.equal(me.status, 200);
  t.equal(me.body.data.user.email, body.email.toLowerCase());
  t.equal(me.body.data.memberships[0].role, 'owner');
});

t.test('signup validation: 422 with a detail for every bad field', async (t) => {
  const longSignup = validSignup();
  const reservedSignup = validSignup();
  const response = await app.request({
    method: 'POST',
    url: '/auth/signup',
    payload: { firstName: '', email: 'not-an-email', password: 'short', storeName: 'x', storeSlug: '-Bad_slug-', extra: true }
  });
  t.equal(response.status, 422);
  t.equal(response.body.success, false);
  t.equal(response.body.error.code, 'validation_failed');
  const paths = response.body.error.details.map((d: { path: string }) => d.path);
  for (const path of ['firstName', 'lastName', 'email', 'password', 'storeSlug', 'extra']) t.ok(paths.includes(path), `detail for ${path}`);

  const long = await app.request({ method: 'POST', url: '/auth/signup', payload: { ...longSignup, password: 'x'.repeat(129) } });
  t.equal(long.status, 422);
  const reserved = await app.request({ method: 'POST', url: '/auth/signup', payload: { ...reservedSignup, storeSlug: 'admin' } });
  t.equal(reserved.status, 422);
  t.equal(reserved.body.error.details[0].path, 'storeSlug');
  const empty = await app.request({ method: 'POST', url: '/auth/signup' });
  t.equal(empty.status, 422);
  // The app is shared: count the rows these attempts could have made (their emails, their slugs).
  const emails = ['not-an-email', longSignup.email, reservedSignup.email].map((email) => email.toLowerCase());
  const count = await app.ctx.db('users').whereRaw('lower(email) = any(?)', [emails]).count('* as n').first();
  t.equal(Number(count?.n), 0, 'nothing written');
  const stores = await app.ctx.db('stores').whereIn('slug', ['-Bad_slug-', longSignup.storeSlug, 'admin']).count('* as n').first();
  t.equal(Number(stores?.n), 0, 'no store either');
});

t.test('signup conflicts: email_taken and slug_taken, case-insensitively', async (t) => {
  const first = validSignup();
  t.equal((await app.request({ method: 'POST', url: '/auth/signup', payload: first })).status, 201);
  const sameEmail = await app.request({ method: 'POST', url: '/auth/signup', payload: { ...validSignup(), email: first.email.toUpperCase() } });
  t.equal(sameEmail.status, 409);
  t.equal(sameEmail.body.error.code, 'email_taken');
  const sameSlug = await app.request({ method: 'POST', url: '/auth/signup', payload: { ...validSignup(), storeSlug: first.storeSlug } });
  t.equal(sameSlug.status, 409);
  t.equal(sameSlug.body.error.code, 'slug_taken');
});

t.test('two simultaneous signups with the same slug: one 201, one 409, nothing half-created', async (t) => {
  const slug = `race-${unique('r')}`;
  const attempts = Array.from({ length: 6 }, () => ({ ...validSignup(), storeSlug: slug }));
  const responses = await Promise.all(attempts.map((payload) => app.request({ method: 'POST', url: '/auth/signup', payload })));
  const statuses = responses.map((r) => r.status).sort();
  t.same(statuses, [201, 409, 409, 409, 409, 409]);
  for (const r of responses.filter((r) => r.status === 409)) t.equal(r.body.error.code, 'slug_taken');
  // The app is shared: count what these six attempts could have made (their emails, the slug's store).
  const emails = attempts.map((attempt) => attempt.email.toLowerCase());
  const userIds = app.ctx.db('users').whereRaw('lower(email) = any(?)', [emails]).select('id');
  const storeIds = app.ctx.db('stores').where({ slug }).select('id');
  const users = await app.ctx.db('users').whereRaw('lower(email) = any(?)', [emails]).count('* as n').first();
  const stores = await app.ctx.db('stores').where({ slug }).count('* as n').first();
  const memberships = await app.ctx.db('memberships').where((q) => q.whereIn('userId', userIds).orWhereIn('storeId', storeIds)).count('* as n').first();
  const tokens = await app.ctx.db('storefrontTokens').whereIn('storeId', storeIds).count('* as n').first();
  t.same([users?.n, stores?.n, memberships?.n, tokens?.n].map(Number), [1, 1, 1, 1], 'only the winner exists');
});

t.test('login: success, and the same 401 for a wrong password and an unknown email', async (t) => {
  const owner = await signupOwner(app);
  const ok = await app.request({ method: 'POST', url: '/auth/login', payload: { email: owner.email.toUpperCase(), password: owner.password } });
  t.equal(ok.status, 200);
  t.equal(ok.body.data.user.id, owner.user.id);
  t.equal(ok.body.data.memberships[0].storeId, owner.store.id);
  t.ok(ok.body.data.accessToken);

  const wrong = await app.request({ method: 'POST', url: '/auth/login', payload: { email: owner.email, password: 'wrong password' } });
  const unknown = await app.request({ method: 'POST', url: '/auth/login', payload: { email: 'nobody@example.com', password: 'wrong password' } });
  for (const response of [wrong, unknown]) {
    t.equal(response.status, 401);
    t.equal(response.body.error.code, 'invalid_credentials');
    t.ok(response.headers['www-authenticate']);
  }
  t.equal(wrong.body.error.message, unknown.body.error.message);
});

t.test('login is rate limited per email with Retry-After', async (t) => {
  const app = await buildApp(t, { env: { RATE_LIMIT_AUTH_PER_EMAIL: '3' } });
  await freshMinute();
  const statuses: number[] = [];
  let last;
  for (let i = 0; i < 5; i++) {
    last = await app.request({ method: 'POST', url: '/auth/login', payload: { email: 'target@example.com', password: 'guess' } });
    statuses.push(last.status);
  }
  t.same(statuses, [401, 401, 401, 429, 429]);
  t.equal(last!.body.error.code, 'rate_limited');
  t.ok(Number(last!.headers['retry-after']) >= 1);
});
