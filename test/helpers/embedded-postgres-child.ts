import { acquireEmbeddedPostgres } from '../../src/db/embedded-postgres/index.js';

// A separate process using the embedded server in the directory argv[2], as `npm run web` or
// `npm run worker` would: it prints what it got, and leaves the server on SIGTERM. A SIGKILL
// leaves without a word, like a crash.
const server = await acquireEmbeddedPostgres({ dir: process.argv[2]!, profile: 'test' });
process.stdout.write(`${JSON.stringify({ port: server.port, startedHere: server.startedHere, url: server.url('postgres') })}\n`);
process.on('SIGTERM', () => void server.release().then(() => process.exit(0)));
setInterval(() => undefined, 60_000);
