import { loadConfig } from '../../src/config.js';
import { createContext, openContext } from '../../src/context.js';
import { MODULES } from '../../src/installed-modules.js';
import { startWorkers } from '../../src/workers/run-workers.js';

// A separate worker process for the `webhooks` queue, run until the test kills it (SIGKILL: no
// cleanup, no shutdown hooks, exactly like a crash).
const ctx = createContext(loadConfig({ ...process.env, NODE_ENV: 'test' }), { modules: MODULES, dbPoolMax: 4 });
await openContext(ctx);
await startWorkers(ctx, ['webhooks']);
process.stdout.write('working\n');
