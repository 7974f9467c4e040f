import t from 'tap';
import { AUDITED } from '../../../src/api/audit-route.js';
import { addMember, buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { orderOps } from '../../helpers/order-ops.js';
import { waitForJob } from '../../helpers/jobs.js';
import { sealAudit } from '../../helpers/audit.js';
import { scheduledSealsDone } from '../../../src/services/audit/index.js';

/**
 * One app for the file (issue #32: each app costs a cloned database and a server). Each test signs up
 * its own store, so none sees another's data; a test that changes the app itself (a route added, a
 * connection cut, other settings or workers) or counts what the whole app holds builds its own.
 */
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.setTimeout(240_000);

const admin = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });
type Entry = { seq: number; action: string; actor: { type: string; userId: string | null; apiKeyId: string | null; email: string | null }; resource: { type: string; id: string | null }; changes: any; ip: string | null; userAgent: string | null; requestId: string | null };

async function entries(app: TestApp, owner: Owner, query = ''): Promise<Entry[]> {
  const response = await app.request({ url: `/admin/store/audit-log${query}`, ...admin(owner) });
  if (response.status !== 200) throw new Error(`audit log: ${response.status} ${response.raw}`);
  return response.body.data.entries;
}
const verify = async (app: TestApp, owner: Owner) => (await app.request({ url: '/admin/store/audit-log/verify', ...admin(owner) })).body.data;

t.test('a product edit, a refund, a role change and an export each leave one entry with the actor and the diff', async (t) => {
  const app = await buildApp(t, { workers: ['imports'] });
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Audited', [{ price: 1000, stock: 5 }]);

  const edit = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { title: 'Audited v2' }, headers: { 'user-agent': 'audit-test/1' }, ...admin(owner) });
  t.equal(edit.status, 200, edit.raw);
  const [edited] = await entries(app, owner, `?action=product.updated&resourceId=${product.id}`);
  t.equal(edited!.actor.type, 'user');
  t.equal(edited!.actor.userId, owner.user.id);
  t.same(edited!.changes, { title: { before: 'Audited', after: 'Audited v2' } }, 'only the changed field, before and after');
  t.equal(edited!.userAgent, 'audit-test/1');
  t.ok(edited!.ip && edited!.requestId, 'ip and request id recorded');
  t.equal((await entries(app, owner, `?action=product.updated&resourceId=${product.id}`)).length, 1, 'exactly one entry for the edit');

  const ops = orderOps(app, owner);
  const order = await ops.paidOrder([{ variantId: product.variants[0]!.id, quantity: 1 }]);
  const refunded = await ops.refund(order.id, [{ orderItemId: order.items[0]!.id, quantity: 1 }]);
  t.equal(refunded.status, 201, refunded.raw);
  const refunds = await entries(app, owner, `?action=order.refunded&resourceId=${order.id}`);
  t.equal(refunds.length, 1);
  t.equal(refunds[0]!.changes.amount, 1000);
  t.equal(refunds[0]!.actor.userId, owner.user.id);

  const member = await addMember(app, owner.store.id, 'staff');
  const role = await app.request({ method: 'PATCH', url: `/admin/store/team/members/${member.user.id}`, payload: { role: 'admin' }, ...admin(owner) });
  t.equal(role.status, 200, role.raw);
  const roles = await entries(app, owner, '?action=member.role_changed');
  t.equal(roles.length, 1);
  t.same(roles[0]!.changes, { role: { before: 'staff', after: 'admin' } });
  t.equal(roles[0]!.resource.id, member.user.id);

  const started = await app.request({ method: 'POST', url: '/admin/customers/export', ...admin(owner) });
  t.equal(started.status, 202);
  const job = await waitForJob(app, owner, started.body.data.job.id);
  t.equal(job.status, 'completed');
  t.equal((await app.request({ url: `/admin/jobs/${job.id}/download`, ...admin(owner) })).status, 200);
  const downloads = await entries(app, owner, '?action=export.downloaded');
  t.equal(downloads.length, 1, 'the download of personal data in bulk is an entry');
  t.same(downloads[0]!.changes, { type: 'customers.export' });

  // An API key's entry names the key and its creator.
  const key = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: 'ci', scopes: ['write_products', 'read_audit'] }, ...admin(owner) });
  t.equal(key.status, 201);
  const created = await entries(app, owner, '?action=api_key.created');
  t.equal(created[0]!.resource.id, key.body.data.apiKey.id);
  t.notOk(JSON.stringify(created).includes(key.body.data.secret), 'never the secret');
  const byKey = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { status: 'draft' }, headers: { authorization: `Bearer ${key.body.data.secret}` } });
  t.equal(byKey.status, 200, byKey.raw);
  const [keyed] = await entries(app, owner, `?actor=${key.body.data.apiKey.id}`);
  t.equal(keyed!.action, 'product.updated');
  t.same(keyed!.actor, { type: 'api_key', apiKeyId: key.body.data.apiKey.id, userId: owner.user.id, email: owner.user.email }, 'the key and the member who created it');
  const readByKey = await app.request({ url: '/admin/store/audit-log?limit=2', headers: { authorization: `Bearer ${key.body.data.secret}` } });
  t.equal(readByKey.status, 200, 'read_audit reads the log');
  t.equal(readByKey.body.data.entries.length, 2);
  t.ok(readByKey.body.meta.pagination.nextCursor, 'cursor paginated');
  const next = await app.request({ url: `/admin/store/audit-log?limit=2&cursor=${readByKey.body.meta.pagination.nextCursor}`, headers: { authorization: `Bearer ${key.body.data.secret}` } });
  t.ok(next.body.data.entries[0].seq < readByKey.body.data.entries[1].seq, 'newest first, the next page older');

  // Staff may not read it.
  t.equal((await app.request({ url: '/admin/store/audit-log', token: member.accessToken, storeId: owner.store.id })).status, 200, 'the promoted member (admin) may');
  const staff = await addMember(app, owner.store.id, 'staff');
  t.equal((await app.request({ url: '/admin/store/audit-log', token: staff.accessToken, storeId: owner.store.id })).status, 403, 'staff may not');

  const result = await verify(app, owner);
  t.equal(result.valid, true);
  t.ok(result.checked >= 8);

  // CSV export of the log, itself recorded.
  const exported = await app.request({ method: 'POST', url: '/admin/store/audit-log/export', payload: { action: 'product.updated' }, ...admin(owner) });
  t.equal(exported.status, 202, exported.raw);
  const exportJob = await waitForJob(app, owner, exported.body.data.job.id);
  t.equal(exportJob.status, 'completed', JSON.stringify(exportJob));
  const csv = await app.request({ url: `/admin/jobs/${exportJob.id}/download`, ...admin(owner) });
  const lines = csv.raw.trim().split('\n');
  t.match(lines[0], /^seq,created_at,actor_type/);
  t.equal(lines.length, 1 + 2, 'the two product.updated entries');
});

t.test('sign-ins and failed sign-ins are entries in the member\'s stores', async (t) => {
  const owner = await signupOwner(app);
  t.equal((await app.request({ method: 'POST', url: '/auth/login', payload: { email: owner.user.email, password: 'wrong-password' } })).status, 401);
  const failed = await entries(app, owner, '?action=user.sign_in_failed');
  t.equal(failed.length, 1);
  t.equal(failed[0]!.actor.userId, owner.user.id);
  t.equal((await app.request({ method: 'POST', url: '/auth/login', payload: { email: owner.user.email, password: owner.password } })).status, 200);
  t.equal((await entries(app, owner, '?action=user.signed_in')).length, 1);

  const settings = await app.request({ method: 'PATCH', url: '/admin/store', payload: { auditRetentionDays: 30, name: 'Renamed' }, ...admin(owner) });
  t.equal(settings.status, 200, settings.raw);
  t.equal(settings.body.data.store.auditRetentionDays, 30);
  const [changed] = await entries(app, owner, '?action=store.settings_updated');
  t.same(changed!.changes.auditRetentionDays, { before: 365, after: 30 });
});

t.test('the table refuses UPDATE and DELETE; a forced edit is reported by verify; retention keeps the chain verifiable', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  for (const title of ['a', 'b', 'c', 'd']) t.equal((await app.request({ method: 'POST', url: '/admin/products', payload: { title, variants: [{ price: 1 }] }, ...admin(owner) })).status, 201);
  await sealAudit(app, owner.store.id);
  const rows = await app.ctx.db('auditLog').where({ storeId: owner.store.id }).orderBy('seq');
  t.equal(rows.length, 4);
  await t.rejects(app.ctx.db.raw(`update audit_log set action = 'x' where store_id = ? and seq = 2`, [owner.store.id]), /append-only/, 'UPDATE refused');
  await t.rejects(app.ctx.db.raw(`delete from audit_log where store_id = ? and seq = 2`, [owner.store.id]), /append-only/, 'DELETE refused');
  t.equal((await verify(app, owner)).valid, true);

  // As a superuser with triggers off (session_replication_role = replica), on one connection.
  await app.ctx.db.transaction(async (trx) => {
    await trx.raw(`set local session_replication_role = replica`);
    await trx.raw(`update audit_log set changes = '{"title":{"before":null,"after":"forged"}}' where store_id = ? and seq = 3`, [owner.store.id]);
  });
  const broken = await verify(app, owner);
  t.equal(broken.valid, false);
  t.equal(broken.firstBroken.seq, 3, 'the first broken link');
  t.equal(broken.firstBroken.problem, 'the entry does not match its hash');

  // Retention: the other store's old entries are purged, the newest kept, the chain still verifies.
  const other = await signupOwner(app);
  for (const title of ['x', 'y', 'z']) await app.request({ method: 'POST', url: '/admin/products', payload: { title, variants: [{ price: 1 }] }, ...admin(other) });
  await app.ctx.db.transaction(async (trx) => {
    await trx.raw(`set local session_replication_role = replica`);
    // created_at is hashed: move the rows back in time, then re-chain them as if written then.
    await trx.raw(`update stores set audit_retention_days = 30 where id = ?`, [other.store.id]);
  });
  await sealAudit(app, other.store.id);
  const { entryHash, GENESIS_HASH } = await import('../../../src/services/audit/index.js');
  const { chainedFields } = await import('../../../src/services/audit/index.js');
  await app.ctx.db.transaction(async (trx) => {
    await trx.raw(`set local session_replication_role = replica`);
    let prev = GENESIS_HASH;
    const kept = await trx('auditLog').where({ storeId: other.store.id }).orderBy('seq');
    t.equal(kept.length, 3, 'sealed before the rows are moved back');
    for (const [index, row] of kept.entries()) {
      const createdAt = index < 2 ? new Date(Date.now() - 40 * 86_400_000 + index * 1000) : new Date(row.createdAt);
      const hash = entryHash(prev, chainedFields({ ...row, createdAt }));
      await trx('auditLog').where({ storeId: other.store.id, seq: row.seq }).update({ createdAt, prevHash: prev, hash });
      prev = hash;
    }
  });
  t.equal((await verify(app, other)).valid, true, 'valid before the purge');
  const { purgeExpiredAuditEntries } = await import('../../../src/services/audit/index.js');
  t.equal(await purgeExpiredAuditEntries(app.ctx), 2);
  const left = await app.ctx.db('auditLog').where({ storeId: other.store.id }).orderBy('seq').pluck('seq');
  t.same(left.map(Number), [3]);
  const after = await verify(app, other);
  t.equal(after.valid, true, 'the chain verifies from the oldest kept entry');
  t.equal(after.checked, 1);
  t.not(after.anchor, GENESIS_HASH, "the anchor is the purged entry's hash");
  t.equal((await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'after', variants: [{ price: 1 }] }, ...admin(other) })).status, 201);
  t.equal((await verify(app, other)).valid, true, 'and goes on after it');
});

t.test('every state-changing admin route runs in an audit request; one without its own entry still leaves one', async (t) => {
  const owner = await signupOwner(app);
  const table = app.server.table().filter((route) => route.settings.tags?.includes('admin') && ['post', 'put', 'patch', 'delete'].includes(route.method));
  t.ok(table.length > 40, `${table.length} state-changing admin routes`);
  const unaudited = table.filter((route) => !(route.settings.handler as unknown as Record<symbol, unknown>)[AUDITED]).map((route) => `${route.method} ${route.path}`);
  t.same(unaudited, [], 'each handler is wrapped');
  const collection = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Summer' }, ...admin(owner) });
  t.equal(collection.status, 201, collection.raw);
  const [entry] = await entries(app, owner);
  t.equal(entry!.action, 'request.post');
  t.equal(entry!.resource.type, '/api/v1/admin/collections', 'the route as registered');
});

t.test('a mistyped checksummed API key is refused before any database lookup; older keys still work', async (t) => {
  const owner = await signupOwner(app);
  const key = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: 'ci', scopes: ['read_products'] }, ...admin(owner) });
  const secret = key.body.data.secret as string;
  t.match(secret, /^swk_[0-9A-Za-z]{36}$/);
  const typo = secret.slice(0, 8) + (secret[8] === 'a' ? 'b' : 'a') + secret.slice(9);
  const statements: string[] = [];
  const listener = (query: { sql: string }) => statements.push(query.sql);
  app.ctx.db.on('query', listener);
  const refused = await app.request({ url: '/admin/products', headers: { authorization: `Bearer ${typo}` } });
  app.ctx.db.off('query', listener);
  t.equal(refused.status, 401);
  t.same(statements.filter((sql) => /api_keys/.test(sql)), [], 'no api_keys statement for the typo');
  t.equal((await app.request({ url: '/admin/products', headers: { authorization: `Bearer ${secret}` } })).status, 200);

  const { hashToken } = await import('../../../src/platform/secrets.js');
  const legacy = 'swk_' + 'A1b2-C3d4_'.repeat(4) + 'xyz';
  await app.ctx.db('apiKeys').insert({ storeId: owner.store.id, name: 'old', scopes: ['read_products'], createdBy: owner.user.id, prefix: legacy.slice(0, 12), keyHash: hashToken(legacy) });
  t.equal((await app.request({ url: '/admin/products', headers: { authorization: `Bearer ${legacy}` } })).status, 200, 'a key issued before checksums still works');
});

t.test('concurrent changes in one store commit side by side and are sealed into one unbroken chain right after', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  const products: Array<{ id: string }> = [];
  for (const title of ['p1', 'p2', 'p3', 'p4', 'p5']) products.push((await app.request({ method: 'POST', url: '/admin/products', payload: { title, variants: [{ price: 1 }] }, ...admin(owner) })).body.data.product);
  const edits = await Promise.all(
    Array.from({ length: 30 }, (_, i) => app.request({ method: 'PATCH', url: `/admin/products/${products[i % 5]!.id}`, payload: { description: `edit ${i}` }, ...admin(owner) }))
  );
  t.same([...new Set(edits.map((response) => response.status))], [200]);
  // No read seals here: the seal each commit schedules (a second later) empties audit_pending by itself.
  const deadline = Date.now() + 5_000;
  let pending = -1;
  while (Date.now() < deadline && pending !== 0) {
    pending = Number((await app.ctx.db('auditPending').where({ storeId: owner.store.id }).count('* as n').first())?.n);
    if (pending) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.equal(pending, 0, 'nothing left pending a moment after the commits');
  const seqs = (await app.ctx.db('auditLog').where({ storeId: owner.store.id }).orderBy('seq').pluck('seq')).map(Number);
  t.same(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1), 'seq 1…n without a gap');
  t.equal((await entries(app, owner, '?action=product.updated&limit=100')).length, 30, 'one entry per edit');
  const verified = await verify(app, owner);
  t.equal(verified.valid, true);
  t.equal(verified.checked, seqs.length);
});

t.test('a pending entry is append-only too; the sweep seals what a stopped process left pending', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  t.equal((await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'first', variants: [{ price: 1 }] }, ...admin(owner) })).status, 201);
  await sealAudit(app, owner.store.id);
  // The seal that request scheduled (a second after its commit) has run and ended: nothing but the
  // sweep below can seal the row inserted next.
  await scheduledSealsDone(app.ctx);
  // As a process would leave it had it stopped between its COMMIT and its seal.
  await app.ctx.db('auditPending').insert({ storeId: owner.store.id, id: '00000000-0000-4000-8000-000000000001', createdAt: new Date(), actorType: 'system', actorEmail: 'test', action: 'product.updated', resourceType: 'product', changes: JSON.stringify({ title: { before: 'a', after: 'b' } }) });
  await t.rejects(app.ctx.db.raw(`update audit_pending set action = 'x' where store_id = ?`, [owner.store.id]), /append-only/, 'UPDATE refused');
  await t.rejects(app.ctx.db.raw(`delete from audit_pending where store_id = ?`, [owner.store.id]), /append-only/, 'DELETE refused');
  const { sealAllPending } = await import('../../../src/services/audit/index.js');
  t.equal(await sealAllPending(app.ctx), 1, 'the sweep seals it');
  t.equal(Number((await app.ctx.db('auditPending').count('* as n').first())?.n), 0);
  const [sealed] = await entries(app, owner, '?action=product.updated');
  t.match(sealed, { id: '00000000-0000-4000-8000-000000000001', changes: { title: { before: 'a', after: 'b' } } }, 'listed after the entries before it');
  t.equal((await verify(app, owner)).valid, true, 'and the chain verifies');
});

t.test("an entry's insert goes out with its change's COMMIT: when it fails, the change rolls back with it", async (t) => {
  const owner = await signupOwner(app);
  const product = (await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Kept', variants: [{ price: 1 }] }, ...admin(owner) })).body.data.product;
  // A trigger that refuses this product's entry only (the app and its database serve the other tests too).
  await app.ctx.db.raw(`
    create function audit_pending_refuse_test() returns trigger language plpgsql as $$
    begin raise exception 'entry refused for the test'; end $$;
    create trigger audit_pending_refuse_test before insert on audit_pending for each row
      when (new.resource_id = '${product.id}') execute function audit_pending_refuse_test();`);
  t.teardown(() => app.ctx.db.raw(`drop trigger if exists audit_pending_refuse_test on audit_pending; drop function if exists audit_pending_refuse_test();`));
  const statements: string[] = [];
  const listener = (query: { sql: string }) => statements.push(query.sql);
  app.ctx.db.on('query', listener);
  const edit = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { title: 'Changed' }, ...admin(owner) });
  app.ctx.db.off('query', listener);
  t.equal(edit.status, 500, edit.raw);
  t.ok(statements.some((sql) => /insert into audit_pending/.test(sql)), 'the entry was sent');
  t.equal((await app.ctx.db('products').where({ id: product.id }).first('title')).title, 'Kept', 'the change rolled back with its entry');
  t.equal(Number((await app.ctx.db('auditPending').where({ resourceId: product.id, action: 'product.updated' }).count('* as n').first())?.n), 0, 'and no entry');
  await app.ctx.db.raw(`drop trigger audit_pending_refuse_test on audit_pending; drop function audit_pending_refuse_test();`);
  t.equal((await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { title: 'Changed' }, ...admin(owner) })).status, 200);
  const updates = await entries(app, owner, `?action=product.updated&resourceId=${product.id}`);
  t.equal(updates.length, 1, 'the refused edit left no entry');
  t.same(updates[0]!.changes, { title: { before: 'Kept', after: 'Changed' } });
  t.equal((await verify(app, owner)).valid, true);
});

t.test('with the log off (the audit bench\'s comparison run) an admin write opens no extra, empty transaction', async (t) => {
  const app = await buildApp(t, { workers: false, env: { BENCH_AUDIT_OFF: 'true' } });
  const owner = await signupOwner(app);
  const product = (await app.request({ method: 'POST', url: '/admin/products', payload: { title: 'Off', variants: [{ price: 1 }] }, ...admin(owner) })).body.data.product;
  await app.ctx.outbox.drain();
  const statements: string[] = [];
  const listener = (query: { sql: string }) => statements.push(query.sql);
  app.ctx.db.on('query', listener);
  const edit = await app.request({ method: 'PATCH', url: `/admin/products/${product.id}`, payload: { description: 'no entry' }, ...admin(owner) });
  app.ctx.db.off('query', listener);
  t.equal(edit.status, 200, edit.raw);
  // The query event also sees the app's background work (the outbox relay): look for an empty transaction.
  const empty = statements.some((sql, i) => sql === 'BEGIN' && statements[i + 1] === 'COMMIT');
  t.notOk(empty, `no BEGIN followed by COMMIT alone: ${statements.filter((sql) => /^(BEGIN|COMMIT)$/.test(sql)).length} BEGIN/COMMIT`);
  t.equal(Number((await app.ctx.db('auditPending').where({ storeId: owner.store.id }).count('* as n').first())?.n), 0, 'no entry');
});
