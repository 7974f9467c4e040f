import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { SHOPIFY_COLUMNS } from '../src/services/catalog/csv/shopify-columns.js';
import { seedCatalog, signupBenchStore } from './lib/catalog-seed.js';
import { benchSql } from './lib/bench-store.js';
import { freshBenchDatabase } from './lib/database.js';
import { measure, ratio, startBenchServer } from './lib/http.js';
import { settle } from './lib/settle.js';

/**
 * Issue 33 targets: product CSV import of 100,000 variants (25,000 products × 4, no images)
 * >= 5,000 rows/s with the worker's RSS flat; export >= 30,000 rows/s; a bulk price change over the
 * same 100,000 variants (variants/s); and the storefront list (another store of the same database
 * and machine, 20 connections) during the import within 20% of its idle req/s. Each job runs in its
 * own child process (what a worker does), with the worker's capped heap. `BENCH_PRODUCTS` sets the
 * number of products (4 variants each), `BENCH_PRODUCT_ROWS` the number of variant rows. The bare hapi route of the same server, measured first, and
 * the load average say how busy the machine was.
 */
export async function run(): Promise<void> {
  const variants = 4;
  // BENCH_PRODUCT_ROWS (variant rows) or BENCH_PRODUCTS (products of 4 variants) size the run.
  const products = process.env.BENCH_PRODUCT_ROWS ? Math.ceil(Number(process.env.BENCH_PRODUCT_ROWS) / variants) : Number(process.env.BENCH_PRODUCTS ?? 25_000);
  console.log(`\n# products: Shopify CSV import, export, bulk price change (${(products * variants).toLocaleString('en-US')} variants)`);
  console.log(`load average at start: ${loadAverage()}`);
  const databaseUrl = await freshBenchDatabase('products');
  const storageDir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-bench-products-'));
  const server = await startBenchServer(databaseUrl);
  const env = { ...process.env, DATABASE_URL: databaseUrl, STORAGE_DIR: storageDir, REDIS_PREFIX: 'swbench-products' };
  try {
    const shop = await signupBenchStore(server.api, 'bench-shoppers');
    await seedCatalog(databaseUrl, shop.storeId, 1_000, 3);
    const target = await signupBenchStore(server.api, 'bench-products');
    const jobId = randomUUID();
    const fileKey = `imports/${target.storeId}/${jobId}.csv`;
    const bytes = await generateCsv(path.join(storageDir, fileKey), products, variants);
    await benchSql(databaseUrl, `insert into jobs (id, store_id, type, queue, input) values ($1, $2, 'products.import', 'imports', $3)`, [jobId, target.storeId, { fileKey, mode: 'upsert' }]);
    await settle();

    const bare = await measure('GET bare hapi route', server.bare, { connections: 20, duration: 5 });
    const url = `${server.api}/api/v1/storefront/products?limit=20`;
    const headers = { 'x-storefront-token': shop.storefrontToken };
    const idle = await measure('storefront list, idle', url, { headers, connections: 20, duration: 5 });
    const importing = runChild(env, 'import', jobId);
    const during = await measure('storefront list, during the import', url, { headers, connections: 20, duration: 5 });
    const imported = await importing;
    const rows = products * variants;
    console.log(
      `import ${rows.toLocaleString('en-US')} variant rows (${(bytes / 1024 / 1024).toFixed(1)} MB): ${Math.round(rows / (imported.ms / 1000)).toLocaleString('en-US')} rows/s (target >= 5,000), ` +
        `${(imported.ms / 1000).toFixed(1)} s; created ${imported.summary.created}, failed ${imported.summary.failedProducts}`
    );
    console.log(`  worker RSS ${rssLine(imported)}: ${flatness(imported)}`);
    console.log(`  ${cpuLine(imported, rows, 'rows')} (the storefront load's PostgreSQL CPU included while it ran)`);
    console.log(`  ${pacingLine(imported)}`);
    console.log(`storefront during import: ${((during.reqPerSec / idle.reqPerSec) * 100).toFixed(1)}% of idle (target >= 80%); idle list ${ratio(idle, bare)} of bare`);

    await benchSql(databaseUrl, 'analyze products, product_variants');
    const exportJob = randomUUID();
    await benchSql(databaseUrl, `insert into jobs (id, store_id, type, queue, input) values ($1, $2, 'products.export', 'imports', '{}')`, [exportJob, target.storeId]);
    const exported = await runChild(env, 'export', exportJob);
    console.log(
      `export ${Number(exported.summary.rows).toLocaleString('en-US')} rows: ${Math.round(Number(exported.summary.rows) / (exported.ms / 1000)).toLocaleString('en-US')} rows/s (target >= 30,000), ` +
        `RSS ${rssLine(exported)}, ${(exported.ms / 1000).toFixed(2)} s`
    );
    console.log(`  ${cpuLine(exported, Number(exported.summary.rows), 'rows')}`);

    const bulkJob = randomUUID();
    const input = { filter: {}, action: { type: 'changePrice', mode: 'percent', value: 5, rounding: 'ninety_nine' }, count: products };
    await benchSql(databaseUrl, `insert into jobs (id, store_id, type, queue, input) values ($1, $2, 'products.bulk', 'imports', $3)`, [bulkJob, target.storeId, input]);
    const bulk = await runChild(env, 'bulk', bulkJob);
    console.log(
      `bulk price change (+5%, x.99) over ${rows.toLocaleString('en-US')} variants: ${Math.round(rows / (bulk.ms / 1000)).toLocaleString('en-US')} variants/s, ` +
        `RSS ${rssLine(bulk)}, ${(bulk.ms / 1000).toFixed(2)} s; ${bulk.summary.changed} products changed`
    );
    console.log(`  ${cpuLine(bulk, rows, 'variants')}`);
    console.log(`  ${pacingLine(bulk)}`);
    console.log(`load average at end: ${loadAverage()}`);
  } finally {
    await server.stop();
    await rm(storageDir, { recursive: true, force: true });
  }
}

/** Shopify's layout: the product columns on each product's first row, then one row per variant. */
export async function generateCsv(file: string, products: number, variants: number): Promise<number> {
  await mkdir(path.dirname(file), { recursive: true });
  const out = createWriteStream(file);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`${SHOPIFY_COLUMNS.join(',')}\r\n`);
  const at = (cells: Record<string, string>) => SHOPIFY_COLUMNS.map((c) => cells[c] ?? '').join(',') + '\r\n';
  let chunk = '';
  for (let p = 1; p <= products; p++) {
    for (let v = 0; v < variants; v++) {
      const variant = { Handle: `bench-${p}`, 'Option1 Value': `S${v}`, 'Variant SKU': `B${p}-${v}`, 'Variant Inventory Qty': String((p + v) % 20), 'Variant Price': `${10 + (p % 50)}.${v}9`, 'Variant Grams': '250' };
      chunk += at(
        v === 0
          ? { ...variant, Title: `Bench product ${p}`, 'Body (HTML)': '"<p>A product, with a description</p>"', Vendor: 'Bench', Tags: `"t${p % 10}, all"`, Published: 'TRUE', 'Option1 Name': 'Size', Status: 'active' }
          : variant
      );
    }
    if (p % 1_000 === 0) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  out.end();
  await once(out, 'close');
  return bytes;
}

interface ChildOutcome {
  ms: number;
  cpuMs: { worker: number; postgres: number };
  peakRssMb: number;
  rssMb: { start: number; quarter: number; middle: number; threeQuarters: number; end: number; peak: number };
  summary: Record<string, number>;
  pacing: { pauses: number; pausedMs: number };
}

const rssLine = ({ rssMb: r }: ChildOutcome) => `start ${r.start} MB, 1/4 ${r.quarter}, middle ${r.middle}, 3/4 ${r.threeQuarters}, end ${r.end}, peak ${r.peak} MB`;
/** CPU per unit: a load-independent figure beside the wall-clock rate (2 shared cores here). */
const cpuLine = ({ cpuMs }: ChildOutcome, units: number, unit: string) =>
  `CPU: worker ${(cpuMs.worker / 1000).toFixed(1)} s + PostgreSQL ${(cpuMs.postgres / 1000).toFixed(1)} s = ${Math.round(units / ((cpuMs.worker + cpuMs.postgres) / 1000)).toLocaleString('en-US')} ${unit} per CPU-second`;
/** Flat: the end within 64 MB of the first quarter, whatever the number of rows. */
const flatness = ({ rssMb: r }: ChildOutcome) => `${r.end - r.quarter <= 64 ? 'flat' : 'GROWING'} (end - 1/4 = ${r.end - r.quarter} MB)`;
/** The bulk job's pauses while the machine was busy (BULK_JOB_BUSY_PERCENT, platform/bulk-pacing.ts). */
const pacingLine = ({ pacing, ms }: ChildOutcome) =>
  `paced: ${pacing.pauses} pauses, ${(pacing.pausedMs / 1000).toFixed(1)} s of ${(ms / 1000).toFixed(1)} s (BULK_JOB_BUSY_PERCENT=${process.env.BULK_JOB_BUSY_PERCENT ?? 'default'}, WORKER_NICE=${process.env.WORKER_NICE ?? 'default'})`;
const loadAverage = () => os.loadavg().map((n) => n.toFixed(2)).join(', ');

/**
 * Flat memory (issue 33): a file of `BENCH_MEMORY_ROWS` (or `BENCH_PRODUCT_ROWS`) variant rows (default 1,000,000: 250,000
 * products × 4) written as a stream (never held whole), imported by a worker-like child with the
 * worker's capped heap; its RSS is sampled through the import and printed at the start, the
 * quarters and the end. Flat means the end is within 64 MB of the first quarter, whatever N.
 * `npm run bench -- products-memory`.
 */
export async function runMemory(): Promise<void> {
  const rows = Number(process.env.BENCH_MEMORY_ROWS ?? process.env.BENCH_PRODUCT_ROWS ?? 1_000_000);
  const variants = 4;
  const products = Math.ceil(rows / variants);
  console.log(`\n# products-memory: import of ${(products * variants).toLocaleString('en-US')} variant rows, worker RSS through it`);
  console.log(`load average at start: ${loadAverage()}`);
  const databaseUrl = await freshBenchDatabase('products_memory');
  const storageDir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-bench-products-memory-'));
  const server = await startBenchServer(databaseUrl);
  const env = { ...process.env, DATABASE_URL: databaseUrl, STORAGE_DIR: storageDir, REDIS_PREFIX: 'swbench-products-memory' };
  try {
    const target = await signupBenchStore(server.api, 'bench-products-memory');
    await server.stop();
    const jobId = randomUUID();
    const fileKey = `imports/${target.storeId}/${jobId}.csv`;
    const bytes = await generateCsv(path.join(storageDir, fileKey), products, variants);
    await benchSql(databaseUrl, `insert into jobs (id, store_id, type, queue, input) values ($1, $2, 'products.import', 'imports', $3)`, [jobId, target.storeId, { fileKey, mode: 'upsert' }]);
    await settle();
    const imported = await runChild(env, 'import', jobId);
    const total = products * variants;
    console.log(
      `import ${total.toLocaleString('en-US')} rows (${(bytes / 1024 / 1024).toFixed(1)} MB): ${Math.round(total / (imported.ms / 1000)).toLocaleString('en-US')} rows/s, ` +
        `${(imported.ms / 1000).toFixed(1)} s; created ${imported.summary.created}, failed ${imported.summary.failedProducts}`
    );
    console.log(`  worker RSS ${rssLine(imported)}: ${flatness(imported)}`);
    console.log(`  ${cpuLine(imported, total, 'rows')}`);
    console.log(`  ${pacingLine(imported)}`);
    console.log(`load average at end: ${loadAverage()}`);
  } finally {
    await rm(storageDir, { recursive: true, force: true });
  }
}

async function runChild(env: NodeJS.ProcessEnv, mode: 'import' | 'export' | 'bulk', jobId: string): Promise<ChildOutcome> {
  const child = spawn(process.execPath, ['--max-old-space-size=192', '--import', 'tsx', 'bench/lib/products-child.ts', mode, jobId], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`${mode} child exited with ${code}`);
  return JSON.parse(output.trim().split('\n').pop()!) as ChildOutcome;
}
