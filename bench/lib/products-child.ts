import { loadConfig } from '../../src/config.js';
import { closeContext, createContext } from '../../src/context.js';
import { MODULES } from '../../src/services/modules/index.js';
import { runProductBulk } from '../../src/services/catalog/bulk.js';
import { runProductExport } from '../../src/services/catalog/csv/product-export.js';
import { runProductImport } from '../../src/services/catalog/csv/product-import.js';

// Child process for the products benchmark: runs one import, export or bulk job as the worker's
// processor does, and reports its wall time and this process's peak RSS.
const [mode, jobId] = process.argv.slice(2) as ['import' | 'export' | 'bulk', string];
const ctx = createContext(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), { modules: MODULES, dbPoolMax: 4 });
let peakSampled = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakSampled = Math.max(peakSampled, process.memoryUsage().rss);
}, 50);
const started = performance.now();
const result = mode === 'import' ? await runProductImport(ctx, jobId) : mode === 'export' ? await runProductExport(ctx, jobId) : await runProductBulk(ctx, jobId);
const ms = performance.now() - started;
clearInterval(sampler);
const { errors: _errors, problems: _problems, ...summary } = result as unknown as Record<string, unknown>;
process.stdout.write(`${JSON.stringify({ ms, peakRssMb: Math.max(peakSampled, process.resourceUsage().maxRSS * 1024) / 1024 / 1024, summary })}\n`);
await closeContext(ctx);
process.exit(0);
