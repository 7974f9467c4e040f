import { boot } from '../boot.js';
import { closeContext, createContext, openContext } from '../context.js';
import { MODULES } from '../services/modules/index.js';
import { runMain, stopOnSignals } from '../lifecycle.js';
import { addressesOf, describeAddresses } from './addresses.js';
import { createServer } from './server.js';

/** The `web` process: the HTTP API only. */
runMain(async () => {
  const { config, log } = await boot();
  const ctx = createContext(config, { modules: MODULES, log });
  await openContext(ctx);
  const server = await createServer(ctx);
  await server.start();
  const addresses = addressesOf(server, config);
  ctx.log.info({ uri: server.info.uri, ...addresses }, `api listening: ${describeAddresses(addresses)}`);
  stopOnSignals(ctx.log, async () => {
    // Stops accepting connections and waits for in-flight requests.
    await server.stop({ timeout: 20_000 });
    await closeContext(ctx);
  });
});
