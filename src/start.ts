import { boot } from './boot.js';
import { runMain, stopOnSignals } from './lifecycle.js';

/**
 * `npm start`: for one machine. Creates the database if needed, applies migrations, then runs the
 * API and every worker in this one process, building the console (/app) in the background when it
 * is missing or stale. Production runs them as separate Procfile processes.
 * The app's modules are imported beside boot(), so that an embedded PostgreSQL (no DATABASE_URL)
 * initialises and starts while they load.
 */
runMain(async () => {
  const [{ config, log }, { createServer }, { addressesOf, describeAddresses }, { closeContext, createContext, openContext }, { MODULES }, { runMigrations }, { launchWorkers }, { startConsoleBuild }, { consoleDistOf }] = await Promise.all([
    boot(),
    import('./api/server.js'),
    import('./api/addresses.js'),
    import('./context.js'),
    import('./installed-modules.js'),
    import('./db/migrate.js'),
    import('./workers/run-workers.js'),
    import('./api/console/ensure-built.js'),
    import('./api/console/files.js')
  ]);
  const applied = await runMigrations(config.databaseUrl);
  const ctx = createContext(config, { modules: MODULES, log });
  if (applied.length) ctx.log.info({ applied }, 'migrations applied');
  await openContext(ctx);
  // The API listens first: with Redis down at boot it still answers (health says what is down,
  // routes that need Redis 503) while the workers wait for Redis.
  const server = await createServer(ctx);
  await server.start();
  // /health answers from here on, while the workers still start. A SIGTERM in that window (a
  // supervisor, the setup bench) closes them as they start: closing the context under workers left
  // to come up on it put them on ended pools, where BullMQ's PostgreSQL backend retries in a hot loop
  // that starves the event loop, and the process never exited (100% CPU, growing memory).
  const { pool, ready } = launchWorkers(ctx);
  // The console builds in the background when missing or stale: /health answers meanwhile and /app
  // says "building" (issue #38), instead of the API waiting 7 to 32 s for vite. It starts once the
  // workers are up (or after 10 s: with Redis down at boot they wait for it), so that it does not
  // take a core from the app's own start.
  const started = Promise.race([ready, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  const consoleBuild = startConsoleBuild(ctx.log, consoleDistOf(config), { after: started });
  let stopping = false;
  stopOnSignals(ctx.log, async () => {
    stopping = true;
    consoleBuild.stop();
    await server.stop({ timeout: 15_000 });
    await pool.close();
    await closeContext(ctx);
  });
  await ready;
  if (stopping) return;
  // Where the API, the console and the queue dashboard are, in words a newcomer reads (issue #32).
  const addresses = addressesOf(server, config);
  ctx.log.info({ uri: server.info.uri, ...addresses }, `shopwright running (api + workers): ${describeAddresses(addresses)}`);
});
