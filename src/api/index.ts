import { loadConfig } from '../config.js';
import { closeContext, createContext } from '../context.js';
import { createServer } from './server.js';

/** The `web` process: the HTTP API only. Heroku sends SIGTERM and allows 30 s. */
async function main() {
  const config = loadConfig();
  const ctx = createContext(config);
  await ctx.cache.start();
  const server = await createServer(ctx);
  await server.start();
  ctx.log.info({ uri: server.info.uri }, 'api listening');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.log.info({ signal }, 'shutting down api');
    // Stops accepting connections and waits for in-flight requests (up to 20 s).
    await server.stop({ timeout: 20_000 });
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
