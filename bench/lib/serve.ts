import Hapi from '@hapi/hapi';
import { createServer } from '../../src/api/server.js';
import { loadConfig } from '../../src/config.js';
import { createContext, openContext } from '../../src/context.js';
import { MODULES } from '../../src/installed-modules.js';
import { registerDirectSubscribe } from './direct-subscribe.js';

// Child process for HTTP benchmarks: the real API and a bare hapi route, side by side in one
// process, so both are measured under the same conditions.
const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', PORT: '0' });
const ctx = createContext(config, { modules: MODULES, dbPoolMax: 20 });
await openContext(ctx);
const api = await createServer(ctx, { port: 0, host: '127.0.0.1' });
registerDirectSubscribe(api, ctx);
await api.start();
const bare = Hapi.server({ port: 0, host: '127.0.0.1' });
bare.route({ method: 'GET', path: '/bare', handler: () => ({ ok: true }) });
await bare.start();
process.stdout.write(`${JSON.stringify({ api: api.info.uri, bare: `${bare.info.uri}/bare` })}\n`);
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
