import { boot } from '../boot.js';
import { closeContext, createContext, openContext } from '../context.js';
import { MODULES } from '../installed-modules.js';
import { runMain, stopOnSignals } from '../lifecycle.js';
import { lowerWorkerPriority } from './priority.js';
import { startWorkers } from './run-workers.js';

/** The `worker` process: consumes every queue. */
runMain(async () => {
  const { config, log } = await boot();
  // Below the API's priority: a request's work first when both want a CPU (WORKER_NICE).
  lowerWorkerPriority(config, log);
  const ctx = createContext(config, { modules: MODULES, log, readReplica: false });
  await openContext(ctx);
  const pool = await startWorkers(ctx);
  ctx.log.info('workers running');
  stopOnSignals(ctx.log, async () => {
    // Lets active jobs finish before closing the pools.
    await pool.close();
    await closeContext(ctx);
  });
});
