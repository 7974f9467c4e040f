import t from 'tap';
import { runCustomerImport } from '../../../src/services/customers/import.js';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { importCsv, waitForJob } from '../../helpers/jobs.js';

function bigCsv(rows: number, prefix: string): string {
  const lines = ['email,firstName,lastName,tags'];
  for (let i = 0; i < rows; i++) lines.push(`${prefix}${i}@example.com,First${i},Last${i},t${i % 7}`);
  return lines.join('\n') + '\n';
}

/** Counts as a signal: not aborted for the first `batches` checks, aborted after (a worker dying mid-import). */
function dieAfter(batches: number): AbortSignal {
  let checks = 0;
  return {
    get aborted() {
      checks += 1;
      return checks > batches;
    }
  } as AbortSignal;
}

// One app for the tests that run the import by hand with no workers (issue #32); each signs up its own
// store. The test that starts the workers mid-way, and the one built with them, build their own: a
// worker left running would take the other tests' jobs.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('a worker dying mid-import and the job running again leaves exactly one customer per email', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const response = await importCsv(app, owner, bigCsv(2_500, 'kill'));
  t.equal(response.status, 202);
  const jobId = response.body.data.job.id;

  // First run: two batches of 500 commit, then the worker "dies".
  await t.rejects(runCustomerImport(app.ctx, jobId, { batchSize: 500, signal: dieAfter(2) }), /aborted/);
  const count = async () => Number((await app.ctx.db('customers').where({ storeId: owner.store.id }).count('* as n').first())!.n);
  t.equal(await count(), 1_000, 'the committed batches are kept');
  const partial = await app.ctx.db('jobs').where({ id: jobId }).first();
  const applied = partial.checkpoint.partitions.reduce((sum: number, p: { counts: { totalRows: number } }) => sum + p.counts.totalRows, 0);
  t.equal(applied, 1_000, 'the checkpoint records the committed batches');
  t.equal(partial.progress.processedRows, 1_000, 'progress reported per batch');
  t.ok(partial.progress.percent > 0 && partial.progress.percent < 100);

  // The queued BullMQ job is picked up by a fresh worker and resumes after the checkpoint.
  await app.startWorkers(['imports']);
  const job = await waitForJob(app, owner, jobId);
  t.equal(job.status, 'completed', job.error ?? '');
  t.match(job.result, { totalRows: 2_500, validRows: 2_500, created: 2_500, updated: 0, unchanged: 0 }, 'no row applied twice');
  t.equal(await count(), 2_500);
  const distinct = await app.ctx.db('customers').where({ storeId: owner.store.id }).countDistinct({ n: app.ctx.db.raw('lower(email)') }).first();
  t.equal(Number(distinct!.n), 2_500, 'one customer per email');

  // Running the finished job again is a no-op.
  const again = await runCustomerImport(app.ctx, jobId);
  t.equal(again.created, 2_500);
  t.equal(await count(), 2_500);
});

t.test('two runners of the same job cannot both apply a batch', async (t) => {
  const owner = await signupOwner(app);
  const response = await importCsv(app, owner, bigCsv(3_000, 'race'));
  const jobId = response.body.data.job.id;
  const outcomes = await Promise.allSettled([
    runCustomerImport(app.ctx, jobId, { batchSize: 300 }),
    runCustomerImport(app.ctx, jobId, { batchSize: 300 })
  ]);
  // Each partition's batches go to whichever runner commits first; the loser of any batch stops
  // (possibly both runners, each having lost one partition), and nothing is applied twice.
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') t.match(String(outcome.reason), /another worker is running this import/, 'a runner stops only on a lost batch');
  }
  // Whatever the interleaving, a last run completes the job with exact counts.
  const result = await runCustomerImport(app.ctx, jobId, { batchSize: 300 });
  t.match(result, { totalRows: 3_000, created: 3_000, updated: 0 });
  const n = Number((await app.ctx.db('customers').where({ storeId: owner.store.id }).count('* as n').first())!.n);
  t.equal(n, 3_000);
});

t.test('an import never re-subscribes an unsubscribed customer unless the row says so and the store allows it', async (t) => {
  const app = await buildApp(t, { workers: ['imports'] });
  const owner = await signupOwner(app);
  const db = app.ctx.db;
  await db('customers').insert([
    { storeId: owner.store.id, email: 'gone@example.com', emailMarketing: 'unsubscribed', emailMarketingSource: 'unsubscribe_link' },
    { storeId: owner.store.id, email: 'quiet@example.com', emailMarketing: 'unsubscribed' },
    { storeId: owner.store.id, email: 'keep@example.com', emailMarketing: 'subscribed' }
  ]);
  const { importAndWait, customerByEmail } = await import('../../helpers/jobs.js');
  const csv = 'Email,Accepts Email Marketing,First Name\ngone@example.com,yes,Gone\nquiet@example.com,,Quiet\nkeep@example.com,,Keep\n';
  let job = await importAndWait(app, owner, csv);
  t.equal(job.status, 'completed');
  t.equal((await customerByEmail(app, owner.store.id, 'gone@example.com')).emailMarketing, 'unsubscribed', 'store does not allow it');
  t.equal((await customerByEmail(app, owner.store.id, 'gone@example.com')).firstName, 'Gone', 'other fields still update');
  t.equal((await customerByEmail(app, owner.store.id, 'keep@example.com')).emailMarketing, 'subscribed', 'empty cell keeps consent');

  await db('stores').where({ id: owner.store.id }).update({ allowImportResubscribe: true });
  job = await importAndWait(app, owner, csv);
  t.equal((await customerByEmail(app, owner.store.id, 'gone@example.com')).emailMarketing, 'subscribed', 'explicit yes + store flag');
  t.equal((await customerByEmail(app, owner.store.id, 'gone@example.com')).emailMarketingSource, 'import');
  t.equal((await customerByEmail(app, owner.store.id, 'quiet@example.com')).emailMarketing, 'unsubscribed', 'no explicit yes');
});

t.test('a file read in many chunks, each yielding several batches, imports every row exactly once', async (t) => {
  const owner = await signupOwner(app);
  // ~0.7 MB: several read chunks, and dozens of 300-row batches handed out per chunk.
  const response = await importCsv(app, owner, bigCsv(20_000, 'chunky'));
  const jobId = response.body.data.job.id;
  const result = await runCustomerImport(app.ctx, jobId, { batchSize: 300 });
  t.match(result, { totalRows: 20_000, validRows: 20_000, created: 20_000, updated: 0 });
  const n = Number((await app.ctx.db('customers').where({ storeId: owner.store.id }).count('* as n').first())!.n);
  t.equal(n, 20_000);
  const job = await app.ctx.db('jobs').where({ id: jobId }).first();
  t.equal(job.status, 'completed');
});
