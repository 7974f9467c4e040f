import t from 'tap';
import { runCustomerImport } from '../../../src/services/customers/import.js';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { customerByEmail, importCsv } from '../../helpers/jobs.js';

/** A file whose `repeats` rows (line -> email, first name) replace filler rows, the header being line 1. */
function csvWith(rows: number, repeats: Record<number, [string, string]>, filler = 'filler'): string {
  const lines = ['Email,First Name'];
  for (let line = 2; line <= rows + 1; line++) lines.push(repeats[line] ? repeats[line]!.join(',') : `${filler}${line}@example.com,Filler`);
  return lines.join('\n') + '\n';
}

const warnings = (result: { errors: Array<{ row: number; column: string; message: string }> }) =>
  result.errors.filter((e) => e.message.startsWith('warning:')).map((e) => [e.row, e.column, e.message.match(/row (\d+)/)![1]]);

// One app for the file (issue #32); each test signs up its own store and checks only its own jobs'
// rows, so none sees another's data (no workers: each test runs its imports by hand).
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('a repeated email in a later batch is a warning naming the row it replaced; the last row wins', async (t) => {
  const owner = await signupOwner(app);
  const csv = csvWith(2_000, {
    2: ['ann@example.com', 'First'],
    3: ['bob@example.com', 'Bob'],
    4: ['bob@example.com', 'Bobby'], // same batch as line 3
    900: ['ANN@example.com', 'Second'],
    1_950: ['ann@example.com', 'Third'],
    2_001: ['bob@example.com', 'Robert']
  });
  const response = await importCsv(app, owner, csv);
  const jobId = response.body.data.job.id;
  // 100-row batches: lines 2, 900 and 1,950 land in different batches of one partition.
  const result = await runCustomerImport(app.ctx, jobId, { batchSize: 100 });
  t.same(
    warnings(result),
    [
      [4, 'Email', '3'],
      [900, 'Email', '2'],
      [1_950, 'Email', '900'],
      [2_001, 'Email', '4']
    ],
    'each repeat names the latest earlier row of its email, within a batch or across batches'
  );
  t.match(result, { totalRows: 2_000, validRows: 2_000, invalidRows: 0, duplicateRows: 4, created: 1_996, updated: 0, unchanged: 0 });
  t.equal((await customerByEmail(app, owner.store.id, 'ann@example.com')).firstName, 'Third', 'the last row wins');
  t.equal((await customerByEmail(app, owner.store.id, 'bob@example.com')).firstName, 'Robert');
  t.equal(Number((await app.ctx.db('customers').where({ storeId: owner.store.id }).count('* as n').first())!.n), 1_996);
  t.equal(Number((await app.ctx.db('customerImportEmails').where({ jobId }).count('* as n').first())!.n), 0, 'the per-import emails are dropped when it completes');

  // The same file again: every row now matches a stored customer; the repeats are still reported.
  const again = await runCustomerImport(app.ctx, (await importCsv(app, owner, csv)).body.data.job.id, { batchSize: 100 });
  t.equal(warnings(again).length, 4);
  t.match(again, { duplicateRows: 4, created: 0 });
  t.equal(again.updated + again.unchanged, 1_996, 'a repeat is counted once, as a duplicate');

  // A dry run reports the same repeats and writes no customer.
  const dryFile = csvWith(300, { 2: ['new@example.com', 'A'], 290: ['new@example.com', 'B'] }, 'dry');
  const dry = await runCustomerImport(app.ctx, (await importCsv(app, owner, dryFile, '?dryRun=true')).body.data.job.id, { batchSize: 50 });
  t.same(warnings(dry), [[290, 'Email', '2']]);
  t.match(dry, { dryRun: true, totalRows: 300, duplicateRows: 1, created: 299, updated: 0 });
  t.notOk(await customerByEmail(app, owner.store.id, 'new@example.com'));
});

t.test('a repeat after a retry resume point still names the row applied before the worker died', async (t) => {
  const owner = await signupOwner(app);
  const jobId = (await importCsv(app, owner, csvWith(1_000, { 5: ['cat@example.com', 'Before'], 990: ['cat@example.com', 'After'] }))).body.data.job.id;
  let checks = 0;
  const dying = { get aborted() { return ++checks > 2; } } as AbortSignal;
  await t.rejects(runCustomerImport(app.ctx, jobId, { batchSize: 100, signal: dying }), /aborted/);
  t.equal((await customerByEmail(app, owner.store.id, 'cat@example.com')).firstName, 'Before', 'the first occurrence was applied before the crash');
  const result = await runCustomerImport(app.ctx, jobId, { batchSize: 100 });
  t.same(warnings(result), [[990, 'Email', '5']]);
  t.match(result, { totalRows: 1_000, duplicateRows: 1, created: 999 });
  t.equal((await customerByEmail(app, owner.store.id, 'cat@example.com')).firstName, 'After');
});

t.test('the next import, of any store, drops what an import failed for good remembered', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const remembered = async (jobId: string) => Number((await app.ctx.db('customerImportEmails').where({ jobId }).count('* as n').first())!.n);
  const startTwoBatches = async (jobId: string) => {
    let checks = 0;
    const dying = { get aborted() { return ++checks > 2; } } as AbortSignal;
    await t.rejects(runCustomerImport(app.ctx, jobId, { batchSize: 100, signal: dying }), /aborted/);
  };
  const failed = (await importCsv(app, owner, csvWith(500, {}))).body.data.job.id;
  const resumable = (await importCsv(app, owner, csvWith(500, {}, 'resumable'))).body.data.job.id;
  await startTwoBatches(failed);
  await startTwoBatches(resumable);
  t.ok((await remembered(failed)) > 0 && (await remembered(resumable)) > 0);
  await app.ctx.db('jobs').where({ id: failed }).update({ status: 'failed' });
  await runCustomerImport(app.ctx, (await importCsv(app, other, 'email\nz@example.com\n')).body.data.job.id);
  t.equal(await remembered(failed), 0, 'a job failed for good is forgotten');
  t.ok((await remembered(resumable)) > 0, 'a queued job keeps what it needs to resume');
});
