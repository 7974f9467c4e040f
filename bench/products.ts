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
import { measure, startBenchServer } from './lib/http.js';
import { settle } from './lib/settle.js';

/**
 * Issue 33 targets: product CSV import of 100,000 variants (25,000 products × 4, no images)
 * >= 5,000 rows/s with the worker's RSS flat; export >= 30,000 rows/s; a bulk price change over the
 * same 100,000 variants (variants/s); and the storefront list (another store of the same database
 * and machine, 20 connections) during the import within 20% of its idle req/s. Each job runs in its
 * own child process (what a worker does), with the worker's capped heap.
 */
export async function run(): Promise<void> {
  console.log('\n# products: Shopify CSV import, export, bulk price change (100,000 variants)');
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
    const products = Number(process.env.BENCH_PRODUCTS ?? 25_000);
    const variants = 4;
    const bytes = await generateCsv(path.join(storageDir, fileKey), products, variants);
    await benchSql(databaseUrl, `insert into jobs (id, store_id, type, queue, input) values ($1, $2, 'products.import', 'imports', $3)`, [jobId, target.storeId, { fileKey, mode: 'upsert' }]);
    await settle();

    const url = `${server.api}/api/v1/storefront/products?limit=20`;
    const headers = { 'x-storefront-token': shop.storefrontToken };
    const idle = await measure('storefront list, idle', url, { headers, connections: 20, duration: 5 });
    const importing = runChild(env, 'import', jobId);
    const during = await measure('storefront list, during the import', url, { headers, connections: 20, duration: 5 });
    const imported = await importing;
    const rows = products * variants;
    console.log(
      `import ${rows.toLocaleString('en-US')} variant rows (${(bytes / 1024 / 1024).toFixed(1)} MB): ${Math.round(rows / (imported.ms / 1000)).toLocaleString('en-US')} rows/s (target >= 5,000), ` +
        `peak RSS ${imported.peakRssMb.toFixed(0)} MB, ${(imported.ms / 1000).toFixed(1)} s; created ${imported.summary.created}, failed ${imported.summary.failedProducts}`
    );
    console.log(`storefront during import: ${((during.reqPerSec / idle.reqPerSec) * 100).toFixed(1)}% of idle (target >= 80%)`);

    await benchSql(databaseUrl, 'analyze products, product_variants');
    const exportJob = randomUUID();
    await benchSql(databaseUrl, `insert into jobs (id, store_id, type, queue, input) values ($1, $2, 'products.export', 'imports', '{}')`, [exportJob, target.storeId]);
    const exported = await runChild(env, 'export', exportJob);
    console.log(
      `export ${Number(exported.summary.rows).toLocaleString('en-US')} rows: ${Math.round(Number(exported.summary.rows) / (exported.ms / 1000)).toLocaleString('en-US')} rows/s (target >= 30,000), ` +
        `peak RSS ${exported.peakRssMb.toFixed(0)} MB, ${(exported.ms / 1000).toFixed(2)} s`
    );

    const bulkJob = randomUUID();
    const input = { filter: {}, action: { type: 'changePrice', mode: 'percent', value: 5, rounding: 'ninety_nine' }, count: products };
    await benchSql(databaseUrl, `insert into jobs (id, store_id, type, queue, input) values ($1, $2, 'products.bulk', 'imports', $3)`, [bulkJob, target.storeId, input]);
    const bulk = await runChild(env, 'bulk', bulkJob);
    console.log(
      `bulk price change (+5%, x.99) over ${rows.toLocaleString('en-US')} variants: ${Math.round(rows / (bulk.ms / 1000)).toLocaleString('en-US')} variants/s, ` +
        `peak RSS ${bulk.peakRssMb.toFixed(0)} MB, ${(bulk.ms / 1000).toFixed(2)} s; ${bulk.summary.changed} products changed`
    );
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
  peakRssMb: number;
  summary: Record<string, number>;
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
