import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { raiseIssue } from '../../../src/services/issues/issues.js';

t.test('issues: list open and resolved, resolve, deduplicated occurrences, tenancy, paging', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };

  await Promise.all(Array.from({ length: 10 }, () => raiseIssue(app.ctx.db, { storeId: owner.store.id, kind: 'sync_failed', subject: 'acct', severity: 'critical', title: 'Sync failed' })));
  await raiseIssue(app.ctx.db, { storeId: owner.store.id, kind: 'low_stock', subject: 'v1', severity: 'info', title: 'Low stock', detail: 'SKU-1 has 2 left' });
  const theirs = await raiseIssue(app.ctx.db, { storeId: other.store.id, kind: 'low_stock', subject: 'v1', severity: 'info', title: 'Low stock' });

  const open = await app.request({ url: '/admin/store/issues', ...as });
  t.equal(open.status, 200);
  t.equal(open.body.data.issues.length, 2);
  const sync = open.body.data.issues.find((i: any) => i.kind === 'sync_failed');
  t.match(sync, { severity: 'critical', title: 'Sync failed', occurrences: 10, resolvedAt: null });
  t.ok(sync.firstSeenAt && sync.lastSeenAt);
  t.same(Object.keys(sync).sort(), ['detail', 'firstSeenAt', 'id', 'kind', 'lastSeenAt', 'occurrences', 'resolvedAt', 'severity', 'subject', 'title'].sort());

  const page = await app.request({ url: '/admin/store/issues?limit=1', ...as });
  t.equal(page.body.data.issues.length, 1);
  const next = await app.request({ url: `/admin/store/issues?limit=1&cursor=${page.body.meta.pagination.nextCursor}`, ...as });
  t.equal(next.body.data.issues.length, 1);
  t.not(next.body.data.issues[0].id, page.body.data.issues[0].id);

  const resolved = await app.request({ method: 'POST', url: `/admin/store/issues/${sync.id}/resolve`, ...as });
  t.equal(resolved.status, 200);
  t.ok(resolved.body.data.issue.resolvedAt);
  const twice = await app.request({ method: 'POST', url: `/admin/store/issues/${sync.id}/resolve`, ...as });
  t.equal(twice.body.data.issue.resolvedAt, resolved.body.data.issue.resolvedAt, 'idempotent');
  t.equal((await app.request({ url: '/admin/store/issues?status=open', ...as })).body.data.issues.length, 1);
  t.match((await app.request({ url: '/admin/store/issues?status=resolved', ...as })).body.data.issues, [{ id: sync.id }]);

  await raiseIssue(app.ctx.db, { storeId: owner.store.id, kind: 'sync_failed', subject: 'acct', severity: 'critical', title: 'Sync failed' });
  const reopened = (await app.request({ url: '/admin/store/issues', ...as })).body.data.issues.find((i: any) => i.kind === 'sync_failed');
  t.not(reopened.id, sync.id, 'a new occurrence after resolving is a new issue');
  t.equal(reopened.occurrences, 1);

  t.equal((await app.request({ method: 'POST', url: `/admin/store/issues/${theirs.id}/resolve`, ...as })).status, 404, "another store's issue");
  t.equal((await app.request({ url: '/admin/store/issues?status=nope', ...as })).status, 422);
  t.equal((await app.request({ method: 'POST', url: '/admin/store/issues/not-a-uuid/resolve', ...as })).status, 422);
  const staff = await addMember(app, owner.store.id, 'staff');
  t.equal((await app.request({ url: '/admin/store/issues', token: staff.accessToken, storeId: owner.store.id })).status, 403);
  const dashboard = await app.request({ url: '/admin/store', token: staff.accessToken, storeId: owner.store.id });
  t.equal(dashboard.body.data.openIssues.length, 2, 'the dashboard shows open issues');
});
