import { loadConfig } from '../../src/config.js';
import { closeContext, createContext, openContext } from '../../src/context.js';
import { MODULES } from '../../src/installed-modules.js';
import { closeCampaignTransports } from '../../src/adapters/mail/index.js';
import { startWorkers } from '../../src/workers/run-workers.js';

// A worker process for the marketing benchmark: the campaigns queue only, as the `worker` process
// runs it. On SIGTERM it stops and prints its peak RSS.
const ctx = createContext(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), { modules: MODULES });
await openContext(ctx);
const pool = await startWorkers(ctx, ['campaigns']);
let peak = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 50);
process.stdout.write('ready\n');
process.once('SIGTERM', async () => {
  clearInterval(sampler);
  await pool.close();
  closeCampaignTransports();
  process.stdout.write(`${JSON.stringify({ peakRssMb: Math.max(peak, process.resourceUsage().maxRSS * 1024) / 1024 / 1024 })}\n`);
  await closeContext(ctx);
  process.exit(0);
});
