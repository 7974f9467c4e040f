import { loadConfig } from '../config.js';
import { closeContext, createContext } from '../context.js';
import { startWorkers } from './run-workers.js';

/** The `worker` process: consumes every queue. SIGTERM lets active jobs finish, then closes pools. */
async function main() {
  const config = loadConfig();
  const ctx = createContext(config);
  await ctx.cache.start();
  const pool = await startWorkers(ctx);
  ctx.log.info('workers running');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.log.info({ signal }, 'shutting down workers');
    const forced = setTimeout(() => process.exit(1), 25_000);
    forced.unref();
    await pool.close();
    await closeContext(ctx);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
