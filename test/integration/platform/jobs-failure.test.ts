import { access, readdir } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { importCsv, waitForJob } from '../../helpers/jobs.js';

t.test('an import whose upload vanished fails for good, visibly, without retrying', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const queued = await importCsv(app, owner, 'Email,First Name\nann@example.com,Ann\n');
  t.equal(queued.status, 202);
  const jobId = queued.body.data.job.id;
  const row = await app.ctx.db('jobs').where({ id: jobId }).first();
  const stored = path.join(app.ctx.config.storageDir, row.input.fileKey);
  await access(stored);
  const { rm } = await import('node:fs/promises');
  await rm(stored);

  await app.startWorkers(['imports']);
  const job = await waitForJob(app, owner, jobId, 10_000);
  t.equal(job.status, 'failed');
  t.match(job.error, /no longer available/);
  t.ok(job.finishedAt);
  const after = await app.ctx.db('jobs').where({ id: jobId }).first();
  t.equal(after.attempts, 1, 'not retried: retrying cannot help');
  t.equal(await app.ctx.db('customers').where({ storeId: owner.store.id }).count('* as n').first().then((r: any) => Number(r.n)), 0);
});

t.test("a job failed for good gives up its uploaded file; another store cannot see the job", async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const queued = await importCsv(app, owner, 'Email\nbob@example.com\n');
  const jobId = queued.body.data.job.id;
  const { recordJobFailure } = await import('../../../src/services/job-history/job-runs.js');
  await recordJobFailure(app.ctx, jobId, 'worker crashed', false);
  const uploads = path.join(app.ctx.config.storageDir, 'imports', owner.store.id);
  t.equal((await readdir(uploads)).length, 1, 'kept while a retry may follow');
  const retrying = await app.request({ url: `/admin/jobs/${jobId}`, token: owner.accessToken, storeId: owner.store.id });
  t.match(retrying.body.data.job, { status: 'queued', error: 'worker crashed' });

  await recordJobFailure(app.ctx, jobId, 'worker crashed again', true);
  t.equal((await readdir(uploads)).length, 0, 'removed once the job has failed for good');
  const failed = await app.request({ url: `/admin/jobs/${jobId}`, token: owner.accessToken, storeId: owner.store.id });
  t.match(failed.body.data.job, { status: 'failed', error: 'worker crashed again' });

  const foreign = await app.request({ url: `/admin/jobs/${jobId}`, token: other.accessToken, storeId: other.store.id });
  t.equal(foreign.status, 404);
});
