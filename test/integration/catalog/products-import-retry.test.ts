import t from 'tap';
import { BulkPacer } from '../../../src/platform/bulk-pacing.js';
import { runProductImport } from '../../../src/services/catalog/csv/product-import.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { waitForJob } from '../../helpers/jobs.js';
import { importProducts, shopifyCsv } from '../../helpers/products-csv.js';

/** Not aborted for the first `batches` checks, aborted after (a worker dying mid-import). */
function dieAfter(batches: number): AbortSignal {
  let checks = 0;
  return {
    get aborted() {
      checks += 1;
      return checks > batches;
    }
  } as AbortSignal;
}

const catalog = (products: number) =>
  shopifyCsv(
    Array.from({ length: products }, (_, i) => [
      { Handle: `p-${i}`, Title: `P ${i}`, 'Option1 Name': 'Size', 'Option1 Value': 'S', 'Variant SKU': `P${i}-S`, 'Variant Inventory Qty': '2', 'Variant Price': '3.00', Status: 'active' },
      { Handle: `p-${i}`, 'Option1 Value': 'L', 'Variant SKU': `P${i}-L`, 'Variant Inventory Qty': '1', 'Variant Price': '4.00' }
    ]).flat()
  );

t.test('a worker killed mid-import: the job runs again and every product, variant and ledger row is there once', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const response = await importProducts(app, owner, catalog(300));
  const jobId = response.body.data.job.id;
  await t.rejects(runProductImport(app.ctx, jobId, { batchRows: 100, signal: dieAfter(2) }), /aborted/);
  const db = app.ctx.db;
  const count = async (table: string) => Number((await db(table).where({ storeId: owner.store.id }).count('* as n').first())!.n);
  t.equal(await count('products'), 100, 'two committed batches of 50 products (100 rows each)');
  const partial = await db('jobs').where({ id: jobId }).first();
  t.equal(partial.progress.processedRows, 200);
  t.ok(partial.progress.percent > 0 && partial.progress.percent < 100);

  await app.startWorkers(['imports']);
  const job = await waitForJob(app, owner, jobId);
  t.equal(job.status, 'completed', job.error ?? '');
  t.match(job.result, { totalRows: 600, products: 300, created: 300, updated: 0, unchanged: 0, failedProducts: 0 });
  t.equal(await count('products'), 300);
  t.equal(await count('productVariants'), 600);
  t.equal(await count('inventoryLedger'), 600, 'one ledger row per variant: no batch applied twice');
  t.equal((await runProductImport(app.ctx, jobId)).created, 300, 'a finished job run again is a no-op');
});

t.test('two runners of one job never both apply a batch', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const jobId = (await importProducts(app, owner, catalog(200))).body.data.job.id;
  const outcomes = await Promise.allSettled([runProductImport(app.ctx, jobId, { batchRows: 50 }), runProductImport(app.ctx, jobId, { batchRows: 50 })]);
  for (const outcome of outcomes) if (outcome.status === 'rejected') t.match(String(outcome.reason), /another worker is running this import|duplicate key/);
  const result = await runProductImport(app.ctx, jobId, { batchRows: 50 });
  t.equal(result.products, 200);
  t.equal(Number((await app.ctx.db('products').where({ storeId: owner.store.id }).count('* as n').first())!.n), 200);
});

/**
 * A machine always busy (every batch's run-queue wait above half): a pacer that records its pauses
 * instead of sleeping them, and runs `onPause` at each.
 */
function busyMachinePacer(onPause: (n: number) => void = () => undefined) {
  let reading = 0;
  const pauses: number[] = [];
  const pacer = new BulkPacer({
    busyPercent: 25,
    probe: () => ({ runNs: ++reading * 1e6, waitNs: reading * 10e6 }),
    sleep: async (ms) => {
      pauses.push(ms);
      onPause(pauses.length);
    }
  });
  return { pacer, pauses };
}

t.test('a busy machine: the import pauses after its batches, a shutdown during a pause resumes after the last committed batch, each row applied once', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  const jobId = (await importProducts(app, owner, catalog(300))).body.data.job.id;
  const db = app.ctx.db;
  const count = async (table: string) => Number((await db(table).where({ storeId: owner.store.id }).count('* as n').first())!.n);

  const shutdown = new AbortController();
  const first = busyMachinePacer((n) => n === 2 && shutdown.abort());
  await t.rejects(runProductImport(app.ctx, jobId, { batchRows: 100, signal: shutdown.signal, pacer: first.pacer }), /aborted/);
  t.equal(first.pauses.length, 2, 'a pause after each committed batch from the second busy one on');
  t.ok(first.pauses.every((ms) => ms > 0), 'each three times its batch');
  t.equal(await count('products'), 150, 'the three batches before the shutdown are committed');

  const second = busyMachinePacer();
  const result = await runProductImport(app.ctx, jobId, { batchRows: 100, pacer: second.pacer });
  t.equal(second.pauses.length, 2, 'the three remaining batches, the last two followed by a pause');
  t.match(result, { totalRows: 600, products: 300, created: 300, updated: 0, failedProducts: 0 });
  t.equal(await count('products'), 300);
  t.equal(await count('productVariants'), 600);
  t.equal(await count('inventoryLedger'), 600, 'one ledger row per variant: no batch applied twice');
});
