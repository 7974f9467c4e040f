import t from 'tap';
import { API_KEY_SCOPES, ROLE_SCOPES } from '../../../src/services/api-keys/scopes.js';
import { addMember, buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { secondProcess, type SecondProcess } from '../../helpers/second-process.js';

/**
 * Issue #31, item 1: a key never outlives nor exceeds its creator's rights. Removing the member
 * revokes their keys (`member_removed`), lowering their role narrows them, both at once in every
 * process; the key list says who created each key and why one was revoked.
 */

const as = (person: { accessToken: string }, owner: Owner) => ({ token: person.accessToken, storeId: owner.store.id });

async function createKey(app: TestApp, creator: { accessToken: string }, owner: Owner, scopes: string[]) {
  const created = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: 'Integration', scopes }, ...as(creator, owner) });
  if (created.status !== 201) throw new Error(`key not created: ${created.status} ${created.raw}`);
  return created.body.data as { apiKey: { id: string }; secret: string };
}

type Caller = (options: { method?: string; url: string; payload?: unknown }) => Promise<{ status: number; body: any }>;
const callerFor = (target: TestApp | SecondProcess, secret: string): Caller => (options) =>
  target.request({ ...options, headers: { authorization: `Bearer ${secret}` } });

/** The key's answer from a process that learns of the change only through the invalidation channel. */
async function settles(call: () => Promise<number>, expected: number, withinMs = 3_000): Promise<number> {
  const started = Date.now();
  let status = await call();
  while (status !== expected && Date.now() - started < withinMs) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    status = await call();
  }
  return status;
}

const newList = (name: string) => ({ method: 'POST', url: '/admin/marketing/lists', payload: { name } });

/**
 * Two apps for the file rather than one a test (issue #32: each app costs a cloned database and a
 * server): the two tests across processes share one with a cache TTL of ten minutes (only the
 * invalidation can make the second process forget a key), the others one with the default settings.
 * Each test signs up its own store, so none sees another's data.
 */
let app: TestApp;
let cachingApp: TestApp;
t.before(async () => {
  cachingApp = await buildApp(t, { env: { STOREFRONT_CACHE_TTL_MS: '600000' } });
  app = await buildApp(t);
});

t.test("a removed member's key is refused at once, by every process, and the list says why", async (t) => {
  // A cache TTL of ten minutes: only the invalidation can make the second process forget the key.
  const app = cachingApp;
  const second = await secondProcess(t, app);
  const owner = await signupOwner(app);
  const member = await addMember(app, owner.store.id, 'admin');
  const { apiKey, secret } = await createKey(app, member, owner, ['read_customers', 'marketing']);
  const here = callerFor(app, secret);
  const there = callerFor(second, secret);

  t.equal((await here({ url: '/admin/customers' })).status, 200, 'the key reads customers');
  t.equal((await there({ url: '/admin/customers' })).status, 200, 'in the second process too (now cached there)');
  t.equal((await here(newList('Before'))).status, 201, 'and writes marketing');

  const removed = await app.request({ method: 'POST', url: `/admin/store/team/members/${member.user.id}/revoke`, ...as(owner, owner) });
  t.equal(removed.status, 200);

  const refused = await here({ url: '/admin/customers' });
  t.equal(refused.status, 401, 'refused by the process that removed the member');
  t.equal(refused.body.error.code, 'unauthenticated');
  t.equal((await here(newList('After'))).status, 401, 'no marketing writes either');
  t.equal(await settles(async () => (await there({ url: '/admin/customers' })).status, 401), 401, 'refused by the second process, which had the key cached');
  t.equal(await app.ctx.db('marketingLists').where({ storeId: owner.store.id, name: 'After' }).count('* as n').first().then((r) => Number(r!.n)), 0, 'nothing written');

  const listed = await app.request({ url: '/admin/store/api-keys', ...as(owner, owner) });
  t.equal(listed.status, 200, listed.raw);
  const shown = listed.body.data.apiKeys.find((k: { id: string }) => k.id === apiKey.id);
  t.match(shown, {
    scopes: ['read_customers', 'marketing'],
    effectiveScopes: [],
    createdBy: { userId: member.user.id, email: member.email },
    revokedReason: 'member_removed'
  });
  t.ok(shown.revokedAt, 'revokedAt is set');

  // Invited back (as admin again): the key stays revoked; it was the old membership's.
  await app.ctx.db('memberships').insert({ storeId: owner.store.id, userId: member.user.id, role: 'admin' });
  t.equal((await here({ url: '/admin/customers' })).status, 401, 'a returning member does not bring old keys back');

  // A key revoked by hand says so, and keeps its reason when revoked again.
  const other = await createKey(app, owner, owner, ['read_orders']);
  const revoked = await app.request({ method: 'DELETE', url: `/admin/store/api-keys/${other.apiKey.id}`, ...as(owner, owner) });
  t.equal(revoked.status, 200, revoked.raw);
  t.match(revoked.body.data.apiKey, { revokedReason: 'revoked', createdBy: { userId: owner.user.id, email: owner.email }, effectiveScopes: [] });
  const again = await app.request({ method: 'DELETE', url: `/admin/store/api-keys/${apiKey.id}`, ...as(owner, owner) });
  t.equal(again.body.data.apiKey.revokedReason, 'member_removed', 'revoking a revoked key keeps why it was revoked');
});

t.test('a lowered role narrows its keys at once, in every process; a raised one gives back no more than granted', async (t) => {
  const app = cachingApp;
  const second = await secondProcess(t, app);
  const owner = await signupOwner(app);
  const member = await addMember(app, owner.store.id, 'admin');
  const { apiKey, secret } = await createKey(app, member, owner, ['read_customers', 'marketing', 'read_jobs', 'write_products']);
  const here = callerFor(app, secret);
  const there = callerFor(second, secret);
  t.equal((await here({ url: '/admin/marketing/lists' })).status, 200, 'an admin key reads marketing');
  t.equal((await there({ url: '/admin/marketing/lists' })).status, 200, 'in both processes');
  t.equal((await there({ url: '/admin/jobs' })).status, 200);

  const lowered = await app.request({ method: 'PATCH', url: `/admin/store/team/members/${member.user.id}`, payload: { role: 'staff' }, ...as(owner, owner) });
  t.equal(lowered.status, 200, lowered.raw);
  t.match(lowered.body.data.member, { userId: member.user.id, role: 'staff', email: member.email });

  const marketing = await here({ url: '/admin/marketing/lists' });
  t.equal(marketing.status, 403, 'marketing is beyond staff: refused');
  t.equal(marketing.body.error.code, 'forbidden');
  t.equal((await here(newList('Staff key'))).status, 403, 'no marketing writes');
  t.equal((await here({ method: 'POST', url: '/admin/customers/export' })).status, 403, 'staff export no customers, nor do their keys');
  t.equal(await settles(async () => (await there({ url: '/admin/marketing/lists' })).status, 403), 403, 'the second process narrows the key too');
  t.equal((await there({ url: '/admin/jobs' })).status, 403, 'jobs too');
  t.equal((await here({ url: '/admin/customers' })).status, 200, 'what staff may do, the key still does');
  t.equal((await there({ method: 'POST', url: '/admin/products', payload: { title: 'By a staff key', variants: [{ price: 5 }] } })).status, 201);
  t.equal((await here({ url: '/admin/orders' })).status, 403, 'never more than its own scopes');

  const listed = await app.request({ url: '/admin/store/api-keys', ...as(owner, owner) });
  const shown = listed.body.data.apiKeys.find((k: { id: string }) => k.id === apiKey.id);
  t.match(shown, { scopes: ['read_customers', 'marketing', 'read_jobs', 'write_products'], revokedAt: null, revokedReason: null, createdBy: { userId: member.user.id } });
  t.same([...shown.effectiveScopes].sort(), ['read_customers', 'write_products'], 'the list shows what the key may do now');

  const raised = await app.request({ method: 'PATCH', url: `/admin/store/team/members/${member.user.id}`, payload: { role: 'admin' }, ...as(owner, owner) });
  t.equal(raised.status, 200);
  t.equal(await settles(async () => (await there({ url: '/admin/marketing/lists' })).status, 200), 200, 'back to admin: its granted scopes work again');
  t.equal((await here({ url: '/admin/orders' })).status, 403, 'and still nothing beyond them');
});

t.test("changing a member's role: who may, and the last owner", async (t) => {
  const owner = await signupOwner(app);
  const admin = await addMember(app, owner.store.id, 'admin');
  const staff = await addMember(app, owner.store.id, 'staff');
  const patch = (who: { accessToken: string }, userId: string, role: string) =>
    app.request({ method: 'PATCH', url: `/admin/store/team/members/${userId}`, payload: { role }, ...as(who, owner) });

  t.equal((await patch(staff, admin.user.id, 'staff')).status, 403, 'staff change no roles');
  t.equal((await patch(admin, staff.user.id, 'owner')).status, 403, 'an admin makes no owner');
  t.equal((await patch(admin, owner.user.id, 'staff')).status, 403, "an admin changes no owner's role");
  t.equal((await patch(admin, staff.user.id, 'admin')).status, 200, 'an admin promotes staff to admin');
  const last = await patch(owner, owner.user.id, 'admin');
  t.equal(last.status, 409);
  t.equal(last.body.error.code, 'last_owner');
  t.equal((await patch(owner, '00000000-0000-4000-8000-000000000000', 'staff')).status, 404);
  t.equal((await patch(owner, admin.user.id, 'boss')).status, 422);
  t.equal((await patch(owner, admin.user.id, 'owner')).status, 200, 'an owner makes an owner');
  t.equal((await patch(owner, owner.user.id, 'staff')).status, 200, 'with two owners, one may step down');
  const team = await app.request({ url: '/admin/store/team', ...as(admin, owner) });
  t.same(
    Object.fromEntries(team.body.data.members.map((m: { userId: string; role: string }) => [m.userId, m.role])),
    { [owner.user.id]: 'staff', [admin.user.id]: 'owner', [staff.user.id]: 'admin' }
  );
});

t.test("each role's key scopes are exactly the scopes of the routes that role may call", async (t) => {
  const reachable = new Map<string, Set<string>>();
  for (const route of app.server.table()) {
    const plugins = route.settings.plugins as { tenancy?: { roles: string[] }; apiKey?: { scope: string | null } } | undefined;
    const scope = plugins?.apiKey?.scope;
    if (!scope) continue;
    for (const role of plugins.tenancy?.roles ?? []) reachable.set(role, (reachable.get(role) ?? new Set()).add(scope));
  }
  for (const [role, scopes] of Object.entries(ROLE_SCOPES)) {
    t.same([...scopes].sort(), [...(reachable.get(role) ?? [])].sort(), `${role}: ROLE_SCOPES matches the routes`);
  }
  t.same([...ROLE_SCOPES.admin].sort(), [...API_KEY_SCOPES].sort(), 'an admin may grant every scope');
});

t.test('the OpenAPI document shows who created a key, what it may do now and why it was revoked', async (t) => {
  const doc = (await app.request({ url: '/openapi.json' })).body;
  const apiKey = doc.components.schemas.ApiKey;
  for (const field of ['createdBy', 'effectiveScopes', 'revokedReason']) t.ok(apiKey.required.includes(field), `ApiKey.${field} is required`);
  t.same(apiKey.properties.revokedReason.enum.filter(Boolean), ['revoked', 'member_removed']);
  const creator = apiKey.properties.createdBy.$ref ? doc.components.schemas[apiKey.properties.createdBy.$ref.split('/').pop()] : apiKey.properties.createdBy;
  t.ok(creator.properties.userId && creator.properties.email, 'createdBy has the user id and email');
  const patch = doc.paths['/api/v1/admin/store/team/members/{userId}']?.patch;
  t.ok(patch, 'the role change is documented');
  t.ok(patch.responses['409'], 'with its 409 last_owner');
});
