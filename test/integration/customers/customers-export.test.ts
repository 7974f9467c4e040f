import t from 'tap';
import Papa from 'papaparse';
import { neutraliseFormula, restoreFormula } from '../../../src/platform/csv/format.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { customerByEmail, importAndWait, waitForJob } from '../../helpers/jobs.js';

t.test('formula guard covers leading whitespace and embedded newlines, and round-trips', async (t) => {
  for (const value of ['=1+1', '+1', '-2', '@SUM(A1)', '\tx', '\rx', '  =1', 'safe\n=cmd', 'a\n  +b']) {
    t.equal(neutraliseFormula(value), `'${value}`, JSON.stringify(value));
    t.equal(restoreFormula(neutraliseFormula(value)), value);
  }
  for (const value of ['plain', "'quoted", "O'Brien", 'a-b', 'x@y.z', '']) {
    t.equal(neutraliseFormula(value), value, JSON.stringify(value));
    t.equal(restoreFormula(value), value);
  }
  t.equal(neutraliseFormula("'=1"), "''=1", 'an apostrophe before a formula is escaped too');
  t.equal(restoreFormula("''=1"), "'=1");
});

t.test('export is formula-safe, downloadable, and re-imports without loss', async (t) => {
  const app = await buildApp(t, { workers: ['imports'] });
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const db = app.ctx.db;
  await db('customers').insert([
    { storeId: owner.store.id, email: 'evil@example.com', firstName: '=HYPERLINK("http://x.test","click")', lastName: ' @SUM(1)', note: 'ok\n-2+3', tags: ['vip', 'a b'] },
    { storeId: owner.store.id, email: 'plain@example.com', firstName: 'Zoë', lastName: "O'Brien, \"Jr\"", phone: '+44 20 7946 0000', emailMarketing: 'subscribed' },
    { storeId: owner.store.id, email: 'unsub@example.com', firstName: "'=tricky", emailMarketing: 'unsubscribed' },
    { storeId: other.store.id, email: 'other@example.com', firstName: 'Other' }
  ]);
  for (let i = 0; i < 30; i++) await db('customers').insert({ storeId: owner.store.id, email: `bulk${i}@example.com`, firstName: `Bulk ${i}` });

  const withKeys = await app.request({ method: 'POST', url: '/admin/customers/export', payload: { format: 'xlsx' }, token: owner.accessToken, storeId: owner.store.id });
  t.equal(withKeys.status, 422, 'a route without a body refuses unknown keys too');
  t.equal(withKeys.body.error.details[0].path, 'format');
  const emptyBody = await app.request({ method: 'POST', url: '/admin/customers/export', payload: {}, token: owner.accessToken, storeId: owner.store.id });
  t.equal(emptyBody.status, 202, '{} is no body');
  const staff = await app.request({ method: 'POST', url: '/admin/customers/export', token: owner.accessToken, storeId: owner.store.id });
  t.equal(staff.status, 202);
  const job = await waitForJob(app, owner, staff.body.data.job.id);
  t.equal(job.status, 'completed', job.error ?? '');
  t.equal(job.type, 'customers.export');
  t.equal(job.result.rows, 33);

  const download = await app.request({ url: `/admin/jobs/${job.id}/download`, token: owner.accessToken, storeId: owner.store.id });
  t.equal(download.status, 200);
  t.match(download.headers['content-type'], /^text\/csv/);
  t.match(download.headers['content-disposition'], /attachment; filename="customers-/);
  const parsed = Papa.parse<Record<string, string>>(download.raw, { header: true, skipEmptyLines: true });
  t.equal(parsed.data.length, 33);
  t.notOk(parsed.data.some((r) => r.email === 'other@example.com'), 'only this store');
  const evil = parsed.data.find((r) => r.email === 'evil@example.com')!;
  t.equal(evil.firstName, `'=HYPERLINK("http://x.test","click")`);
  t.equal(evil.lastName, `' @SUM(1)`);
  t.equal(evil.note, `'ok\n-2+3`, 'a formula after an embedded newline is neutralised');
  t.equal(evil.tags, 'vip, a b');
  const cells = parsed.data.flatMap((row) => Object.values(row));
  t.same(cells.filter((cell) => /^\s*[=+\-@\t\r]/.test(cell)), [], 'no cell starts with a formula character');
  t.equal(parsed.data.find((r) => r.email === 'plain@example.com')!.phone, "'+44 20 7946 0000");

  // Other store cannot see or download it.
  const foreign = await app.request({ url: `/admin/jobs/${job.id}/download`, token: other.accessToken, storeId: other.store.id });
  t.equal(foreign.status, 404);
  const foreignJob = await app.request({ url: `/admin/jobs/${job.id}`, token: other.accessToken, storeId: other.store.id });
  t.equal(foreignJob.status, 404);

  // An export not finished yet is a conflict, not an unknown job.
  const runningId = emptyBody.body.data.job.id as string;
  await waitForJob(app, owner, runningId);
  await app.ctx.db('jobs').where({ id: runningId }).update({ status: 'active' });
  const notReady = await app.request({ url: `/admin/jobs/${runningId}/download`, token: owner.accessToken, storeId: owner.store.id });
  t.equal(notReady.status, 409, notReady.raw);
  t.match(notReady.body.error.message, /not ready: it is active/);
  const unknownJob = await app.request({ url: '/admin/jobs/00000000-0000-4000-8000-000000000000/download', token: owner.accessToken, storeId: owner.store.id });
  t.equal(unknownJob.status, 404);

  // Round trip into a fresh store: every exported field comes back identical.
  const target = await signupOwner(app);
  const imported = await importAndWait(app, target, download.raw);
  t.equal(imported.status, 'completed', imported.error ?? '');
  t.match(imported.result, { totalRows: 33, validRows: 33, created: 33, invalidRows: 0 });
  const fields = ['email', 'firstName', 'lastName', 'phone', 'tags', 'note', 'emailMarketing'] as const;
  for (const email of ['evil@example.com', 'plain@example.com', 'unsub@example.com', 'bulk7@example.com']) {
    const before = await customerByEmail(app, owner.store.id, email);
    const after = await customerByEmail(app, target.store.id, email);
    for (const field of fields) t.same(after[field], before[field], `${email} ${field}`);
  }
  // Importing the same export again changes nothing.
  const again = await importAndWait(app, target, download.raw);
  t.match(again.result, { created: 0, updated: 0, unchanged: 33 });

  // An import job has no file to download.
  const noFile = await app.request({ url: `/admin/jobs/${imported.id}/download`, token: target.accessToken, storeId: target.store.id });
  t.equal(noFile.status, 404);
});
