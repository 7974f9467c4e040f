import { ensureConsoleBuilt } from './api/console/ensure-built.js';
import { createServer } from './api/server.js';
import { loadConfig } from './config.js';
import { closeContext, createContext, openContext } from './context.js';
import { MODULES } from './services/modules/index.js';
import { runMigrations } from './db/migrate.js';
import { runMain, stopOnSignals } from './lifecycle.js';
import { startWorkers, type WorkerPool } from './workers/run-workers.js';

/**
 * `npm start`: for one machine. Creates the database if needed, applies migrations, then runs the
 * API and every worker in this one process, building the console (/app) first when it is missing or stale. Production runs them as separate Procfile processes.
 */
runMain(async () => {
  const config = loadConfig();
  const applied = await runMigrations(config.databaseUrl);
  const ctx = createContext(config, { modules: MODULES });
  if (applied.length) ctx.log.info({ applied }, 'migrations applied');
  await openContext(ctx);
  await ensureConsoleBuilt(ctx.log);
  // The API listens first: with Redis down at boot it still answers (health says what is down,
  // routes that need Redis 503) while the workers wait for Redis.
  const server = await createServer(ctx);
  await server.start();
  let pool: WorkerPool | null = null;
  stopOnSignals(ctx.log, async () => {
    await server.stop({ timeout: 15_000 });
    await pool?.close();
    await closeContext(ctx);
  });
  pool = await startWorkers(ctx);
  ctx.log.info({ uri: server.info.uri }, 'shopwright running (api + workers)');
});
