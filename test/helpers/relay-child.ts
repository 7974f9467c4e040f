import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { OutboxRelay } from '../../src/platform/outbox/relay.js';

// A separate process that relays the outbox in small batches until the test kills it (SIGKILL:
// no cleanup, no shutdown hooks, exactly like a crash). It runs no service, so it installs no module.
const ctx = createContext(loadConfig({ ...process.env, NODE_ENV: 'test' }), { modules: [], dbPoolMax: 2 });
// Connected first, as a real process is (openContext would also start the context's own relay): on a
// Redis Cluster the fail-fast connection refuses commands until it knows the slots.
await ctx.backends.open();
const relay = new OutboxRelay(ctx.db, ctx.queues, ctx.config.databaseUrl, ctx.log, { pollMs: 60_000, batchSize: 20 });
process.stdout.write('relaying\n');
for (;;) {
  if ((await relay.drain()) === 0) break;
}
process.stdout.write('done\n');
process.exit(0);
