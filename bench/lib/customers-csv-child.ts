import { loadConfig } from '../../src/config.js';
import { closeContext, createContext } from '../../src/context.js';
import { MODULES } from '../../src/installed-modules.js';
import { runCustomerExport } from '../../src/services/customers/export.js';
import { runCustomerImport } from '../../src/services/customers/import.js';

// Child process for the customers CSV benchmark: runs one import or export job exactly as the
// worker's processor does, and reports its wall time and this process's peak RSS.
const [mode, jobId] = process.argv.slice(2) as ['import' | 'export', string];
const ctx = createContext(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), { modules: MODULES, dbPoolMax: 4 });
let peakSampled = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakSampled = Math.max(peakSampled, process.memoryUsage().rss);
}, 50);
const started = performance.now();
const result = mode === 'import' ? await runCustomerImport(ctx, jobId) : await runCustomerExport(ctx, jobId);
const ms = performance.now() - started;
clearInterval(sampler);
const { errors: _errors, ...summary } = result as unknown as Record<string, unknown>;
process.stdout.write(`${JSON.stringify({ ms, peakRssMb: Math.max(peakSampled, process.resourceUsage().maxRSS * 1024) / 1024 / 1024, summary })}\n`);
await closeContext(ctx);
process.exit(0);
