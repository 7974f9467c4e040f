import { loadConfig } from '../../src/config.js';
import { closeContext, createContext } from '../../src/context.js';
import { MODULES } from '../../src/installed-modules.js';
import { runProductBulk } from '../../src/services/catalog/bulk.js';
import { runProductExport } from '../../src/services/catalog/csv/product-export.js';
import { runProductImport } from '../../src/services/catalog/csv/product-import.js';
import { BulkPacer } from '../../src/platform/bulk-pacing.js';
import { lowerWorkerPriority } from '../../src/workers/priority.js';
import { cpuSnapshot } from './cpu-time.js';

// Child process for the products benchmarks: runs one import, export or bulk job as the worker's
// processor does, and reports its wall time and this process's RSS: sampled every 100 ms, reported
// at the start of the job, at a quarter, half and three quarters of its time, at its end, and the peak.
const [mode, jobId] = process.argv.slice(2) as ['import' | 'export' | 'bulk', string];
const ctx = createContext(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), { modules: MODULES, dbPoolMax: 4 });
// As the worker process does at start (WORKER_NICE): below the API's OS priority.
lowerWorkerPriority(ctx.config, ctx.log);
// The pacing every bulk job makes (BULK_JOB_BUSY_PERCENT), passed in to report its pauses.
const pacer = new BulkPacer({ busyPercent: ctx.config.bulkJobBusyPercent });
const profile = process.env.BENCH_PROFILE ? profileStatements(ctx.db) : null;
const samples: number[] = [process.memoryUsage().rss];
const sampler = setInterval(() => samples.push(process.memoryUsage().rss), 100);
// CPU of this process and of the PostgreSQL backends serving the bench database: steadier than wall
// time on a shared machine (the storefront load of the products bench counts in while it runs).
const database = decodeURIComponent(new URL(process.env.DATABASE_URL!).pathname.slice(1));
const cpuBefore = cpuSnapshot(process.pid, database);
const started = performance.now();
const result = mode === 'import' ? await runProductImport(ctx, jobId, { pacer }) : mode === 'export' ? await runProductExport(ctx, jobId) : await runProductBulk(ctx, jobId, { pacer });
const ms = performance.now() - started;
clearInterval(sampler);
const cpuAfter = cpuSnapshot(process.pid, database);
let postgresMs = 0;
for (const [pid, ms] of cpuAfter.postgresMs) postgresMs += ms - (cpuBefore.postgresMs.get(pid) ?? 0);
const cpuMs = { worker: cpuAfter.serverMs - cpuBefore.serverMs, postgres: postgresMs };
samples.push(process.memoryUsage().rss);
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const at = (share: number) => mb(samples[Math.min(samples.length - 1, Math.round((samples.length - 1) * share))]!);
const rssMb = { start: at(0), quarter: at(0.25), middle: at(0.5), threeQuarters: at(0.75), end: at(1), peak: mb(Math.max(...samples)) };
if (profile) process.stderr.write(profile());
const { errors: _errors, problems: _problems, ...summary } = result as unknown as Record<string, unknown>;
const pacing = { pauses: pacer.pauses, pausedMs: Math.round(pacer.pausedMs) };
process.stdout.write(`${JSON.stringify({ ms, cpuMs, peakRssMb: rssMb.peak, rssMb, summary, pacing })}\n`);
await closeContext(ctx);
process.exit(0);

/**
 * BENCH_PROFILE=1: wall time per statement shape (its first 90 characters, numbers blanked),
 * summed over the job and printed to stderr, biggest first: where a job's round trips go.
 */
function profileStatements(db: typeof ctx.db): () => string {
  const started = new Map<string, { shape: string; at: number }>();
  const totals = new Map<string, { ms: number; count: number }>();
  const shapeOf = (sql: string) => sql.replace(/\s+/g, ' ').replace(/\$\d+/g, '?').slice(0, 90);
  db.on('query', (q: { __knexQueryUid?: string; sql: string }) => {
    if (q.__knexQueryUid) started.set(q.__knexQueryUid, { shape: shapeOf(q.sql), at: performance.now() });
  });
  const done = (_: unknown, q: { __knexQueryUid?: string }) => {
    const begun = q.__knexQueryUid ? started.get(q.__knexQueryUid) : undefined;
    if (!begun) return;
    started.delete(q.__knexQueryUid!);
    const total = totals.get(begun.shape) ?? { ms: 0, count: 0 };
    total.ms += performance.now() - begun.at;
    total.count += 1;
    totals.set(begun.shape, total);
  };
  db.on('query-response', done);
  db.on('query-error', done);
  return () =>
    [...totals]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, 25)
      .map(([shape, t]) => `${(t.ms / 1000).toFixed(2).padStart(8)} s ${String(t.count).padStart(6)}x  ${shape}`)
      .join('\n') + '\n';
}
