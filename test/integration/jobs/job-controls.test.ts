import { readdir } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sealAudit } from '../../helpers/audit.js';
import { addMember, buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { importCsv, waitForJob } from '../../helpers/jobs.js';

t.setTimeout(180_000);

const post = (app: TestApp, owner: Owner, url: string) => app.request({ method: 'POST', url, payload: {}, ...admin(owner) });

async function startExport(app: TestApp, owner: Owner): Promise<string> {
  const started = await app.request({ method: 'POST', url: '/admin/customers/export', ...admin(owner) });
  if (started.status !== 202) throw new Error(`export refused: ${started.status} ${started.raw}`);
  return started.body.data.job.id;
}

// One app for the tests without workers (issue #32); each signs up its own store, so none sees another's
// data. The tests with workers (from the start, or started mid-way) build their own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('a queued job is cancelled (out of the outbox and the queue), then retried and run to the end', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  await app.ctx.db('customers').insert({ storeId: owner.store.id, email: 'ada@example.com', firstName: 'Ada' });
  const jobId = await startExport(app, owner);
  await app.ctx.outbox.drain();
  t.ok(await app.ctx.queues.get('imports').getJob(jobId), 'relayed to the queue before the cancel');

  const cancelled = await post(app, owner, `/admin/jobs/${jobId}/cancel`);
  t.equal(cancelled.status, 200, cancelled.raw);
  t.match(cancelled.body.data.job, { id: jobId, status: 'failed', error: 'Cancelled by a member of the store' });
  t.notOk(await app.ctx.queues.get('imports').getJob(jobId), 'no worker will pick it up');
  const again = await post(app, owner, `/admin/jobs/${jobId}/cancel`);
  t.equal(again.status, 409);
  t.equal(again.body.error.code, 'job_not_cancellable');
  await sealAudit(app, owner.store.id);
  const entry = await app.ctx.db('auditLog').where({ storeId: owner.store.id, action: 'job.cancelled', resourceId: jobId }).first();
  t.ok(entry, 'the cancel is in the audit log');

  const retried = await post(app, owner, `/admin/jobs/${jobId}/retry`);
  t.equal(retried.status, 200, retried.raw);
  t.match(retried.body.data.job, { status: 'queued', error: null, finishedAt: null });
  await app.startWorkers(['imports']);
  const done = await waitForJob(app, owner, jobId, 20_000);
  t.equal(done.status, 'completed', done.error ?? '');
  const file = await app.request({ url: `/admin/jobs/${jobId}/download`, ...admin(owner) });
  t.match(file.raw, /ada@example.com/, 'the retried run made its file');

  const twice = await post(app, owner, `/admin/jobs/${jobId}/retry`);
  t.equal(twice.status, 409, 'a completed job is not retried');
  t.equal(twice.body.error.code, 'job_not_retryable');
});

t.test('a retry replaces the BullMQ job still kept under the run id (BullMQ would ignore a new one)', async (t) => {
  const app = await buildApp(t, { workers: ['imports'] });
  const owner = await signupOwner(app);
  const jobId = await startExport(app, owner);
  t.equal((await waitForJob(app, owner, jobId, 20_000)).status, 'completed');
  t.ok(await app.ctx.queues.get('imports').getJob(jobId), 'BullMQ keeps the finished job');
  // As the lost-runs sweep leaves a run: failed for good in PostgreSQL.
  await app.ctx.db('jobs').where({ id: jobId }).update({ status: 'failed', error: 'lost', finishedAt: new Date() });
  const retried = await post(app, owner, `/admin/jobs/${jobId}/retry`);
  t.equal(retried.status, 200, retried.raw);
  const done = await waitForJob(app, owner, jobId, 20_000);
  t.equal(done.status, 'completed', 'ran again');
  const row = await app.ctx.db('jobs').where({ id: jobId }).first();
  t.equal(row.attempts, 1, 'one attempt since the retry');
});

t.test('a failed import whose upload was given up is not retried; a running or another store\'s job is refused', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const queued = await importCsv(app, owner, 'Email\nbob@example.com\n');
  const jobId = queued.body.data.job.id;

  t.equal((await post(app, owner, `/admin/jobs/${jobId}/retry`)).status, 409, 'a queued job is not retried');
  for (const action of ['retry', 'cancel']) {
    const foreign = await post(app, other, `/admin/jobs/${jobId}/${action}`);
    t.equal(foreign.status, 404, `${action}: another store's job is not found`);
  }
  await app.ctx.db('jobs').where({ id: jobId }).update({ status: 'active' });
  const running = await post(app, owner, `/admin/jobs/${jobId}/cancel`);
  t.equal(running.status, 409, 'a running job is not cancelled');
  t.match(running.body.error.message, /active/);

  await app.ctx.db('jobs').where({ id: jobId }).update({ status: 'queued' });
  const { recordJobFailure } = await import('../../../src/services/job-history/job-runs.js');
  await recordJobFailure(app.ctx, jobId, 'worker crashed', true);
  t.equal((await readdir(path.join(app.ctx.config.storageDir, 'imports', owner.store.id))).length, 0, 'the upload was given up');
  const gone = await post(app, owner, `/admin/jobs/${jobId}/retry`);
  t.equal(gone.status, 409);
  t.equal(gone.body.error.code, 'job_input_gone');
  t.match(gone.body.error.message, /upload it again/);
});

t.test('retry and cancel are for owners and admins, never for an API key', async (t) => {
  const owner = await signupOwner(app);
  const staff = await addMember(app, owner.store.id, 'staff');
  const adminMember = await addMember(app, owner.store.id, 'admin');
  const jobId = await startExport(app, owner);
  const asStaff = await app.request({ method: 'POST', url: `/admin/jobs/${jobId}/cancel`, payload: {}, token: staff.accessToken, storeId: owner.store.id });
  t.equal(asStaff.status, 403, 'staff');
  const key = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: 'jobs', scopes: ['read_jobs', 'read_customers'] }, ...admin(owner) });
  for (const action of ['cancel', 'retry']) {
    const byKey = await app.request({ method: 'POST', url: `/admin/jobs/${jobId}/${action}`, payload: {}, headers: { authorization: `Bearer ${key.body.data.secret}` } });
    t.equal(byKey.status, 403, `${action} by a read_jobs key`);
  }
  const byAdmin = await app.request({ method: 'POST', url: `/admin/jobs/${jobId}/cancel`, payload: {}, token: adminMember.accessToken, storeId: owner.store.id });
  t.equal(byAdmin.status, 200, 'an admin cancels');
});
