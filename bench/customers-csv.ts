import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { closeContext, createContext, type AppContext } from '../src/context.js';
import { MODULES } from '../src/installed-modules.js';
import { freshBenchDatabase } from './lib/database.js';

/**
 * Issue 4 targets: import >= 20,000 rows/s with peak RSS < 300 MB, the same for 1,000,000 rows as for
 * 100,000 (memory flat); export >= 50,000 rows/s. Each job runs in its own child process (what a
 * worker does), so its peak RSS is the job's alone.
 */
export async function run(): Promise<void> {
  console.log('\n# customers CSV: import and export through the job processors');
  const databaseUrl = await freshBenchDatabase('customers');
  const storageDir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-bench-customers-'));
  const env = { ...process.env, DATABASE_URL: databaseUrl, STORAGE_DIR: storageDir, REDIS_PREFIX: 'swbench-customers' };
  const ctx = createContext(loadConfig(env), { modules: MODULES });
  try {
    for (const [rows, badShare] of [
      [100_000, 0.05],
      [1_000_000, 0.05]
    ] as const) {
      const storeId = await createStore(ctx, `import-${rows}`);
      const jobId = randomUUID();
      const fileKey = `imports/${storeId}/${jobId}.csv`;
      const bytes = await generateCsv(path.join(storageDir, fileKey), rows, badShare);
      await ctx.db('jobs').insert({ id: jobId, storeId, type: 'customers.import', queue: 'imports', input: { fileKey, dryRun: false } });
      const outcome = await runChild(env, 'import', jobId);
      const customers = await countCustomers(ctx, storeId);
      console.log(
        `import ${rows.toLocaleString('en-US')} rows (${(bytes / 1024 / 1024).toFixed(1)} MB, ${badShare * 100}% bad): ` +
          `${Math.round(rows / (outcome.ms / 1000)).toLocaleString('en-US')} rows/s (target >= 20,000), ` +
          `peak RSS ${outcome.peakRssMb.toFixed(0)} MB (target < 300 MB), ${(outcome.ms / 1000).toFixed(1)} s; ` +
          `valid ${outcome.summary.validRows}, invalid ${outcome.summary.invalidRows}, customers ${customers}`
      );
    }

    const exportStore = await createStore(ctx, 'export');
    await ctx.db.raw(
      `insert into customers (store_id, email, first_name, last_name, phone, tags, note, email_marketing)
       select ?, 'export' || g || '@example.com', 'First' || g, case when g % 50 = 0 then '=HYPERLINK("x")' else 'Last' || g end,
              '+1555' || g, array['tag' || (g % 9), 'all'], case when g % 3 = 0 then 'a note, with "quotes"' end,
              (array['subscribed', 'unsubscribed', 'not_subscribed'])[1 + g % 3]
         from generate_series(1, 100000) g`,
      [exportStore]
    );
    await ctx.db.raw('analyze customers');
    const exportJob = randomUUID();
    await ctx.db('jobs').insert({ id: exportJob, storeId: exportStore, type: 'customers.export', queue: 'imports' });
    const exported = await runChild(env, 'export', exportJob);
    console.log(
      `export 100,000 customers: ${Math.round(100_000 / (exported.ms / 1000)).toLocaleString('en-US')} rows/s (target >= 50,000), ` +
        `peak RSS ${exported.peakRssMb.toFixed(0)} MB, ${(exported.ms / 1000).toFixed(2)} s, ${exported.summary.rows} rows written`
    );
  } finally {
    await closeContext(ctx);
    await rm(storageDir, { recursive: true, force: true });
  }
}

async function createStore(ctx: AppContext, slug: string): Promise<string> {
  const [store] = await ctx.db('stores').insert({ name: `Bench ${slug}`, slug: `bench-${slug}` }).returning('id');
  return store.id;
}

async function countCustomers(ctx: AppContext, storeId: string): Promise<number> {
  const row = await ctx.db('customers').where({ storeId }).count<{ n: number }[]>('* as n').first();
  return Number(row?.n ?? 0);
}

/** Shopify-style columns, quoted cells with commas, and a share of bad rows (missing or broken email). */
async function generateCsv(file: string, rows: number, badShare: number): Promise<number> {
  await mkdir(path.dirname(file), { recursive: true });
  const out = createWriteStream(file);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('First Name,Last Name,Email,Accepts Email Marketing,Phone,Tags,Note\r\n');
  const badEvery = Math.round(1 / badShare);
  let chunk = '';
  for (let i = 1; i <= rows; i++) {
    const email = i % badEvery === 0 ? (i % 2 ? '' : `broken${i}.example.com`) : `user${i}@example.com`;
    chunk += `First${i},"Last, ${i}",${email},${i % 4 === 0 ? 'yes' : 'no'},+1555${i},"tag${i % 10}, all",${i % 5 === 0 ? '"a note\nover two lines"' : ''}\r\n`;
    if (i % 5_000 === 0) {
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

/** The Procfile's worker runs with a capped heap; the benchmark's job process mirrors it. */
const WORKER_NODE_FLAGS = ['--max-old-space-size=192'];

async function runChild(env: NodeJS.ProcessEnv, mode: 'import' | 'export', jobId: string): Promise<ChildOutcome> {
  const child = spawn(process.execPath, [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), ...WORKER_NODE_FLAGS, '--import', 'tsx', 'bench/lib/customers-csv-child.ts', mode, jobId], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`${mode} child exited with ${code}`);
  return JSON.parse(output.trim().split('\n').pop()!) as ChildOutcome;
}
