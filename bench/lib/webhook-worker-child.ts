import { loadConfig } from '../../src/config.js';
import { closeContext, createContext, openContext } from '../../src/context.js';
import { MODULES } from '../../src/installed-modules.js';
import { startWorkers } from '../../src/workers/run-workers.js';

// One worker process for the webhooks benchmark: the `webhooks` queue only, as the `worker`
// process runs it. Stops on SIGTERM.
const ctx = createContext(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), { modules: MODULES });
await openContext(ctx);
const pool = await startWorkers(ctx, ['webhooks']);
process.stdout.write('ready\n');
process.once('SIGTERM', async () => {
  await pool.close();
  await closeContext(ctx);
  process.exit(0);
});
