import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * `npm test` after the build: runs tap (arguments passed through) with a template database named
 * for this run, TEST_TEMPLATE_DATABASE=shopwright_tpl_<random>, unless the caller set one. tap
 * hands its environment to its before/after scripts and to every test file, so all of them use
 * this run's template and no other run's (helpers/databases.ts).
 */
const chosen = process.env.TEST_TEMPLATE_DATABASE;
const template = chosen || `shopwright_tpl_${randomBytes(6).toString('hex')}`;
process.env.TEST_TEMPLATE_DATABASE = template;
// Imported after the name is set: the helpers read it once, at import.
const { adminQuery, quoteIdentifier } = await import('../helpers/databases.js');

const require = createRequire(import.meta.url);
const tapManifest = require.resolve('tap/package.json');
const tapBin = path.join(path.dirname(tapManifest), (require(tapManifest) as { bin: { tap: string } }).bin.tap);

const tap = spawn(process.execPath, [tapBin, ...process.argv.slice(2)], { stdio: 'inherit' });
// Passed on, so that tap still runs its `after` step (and reports) when the run is stopped.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => tap.kill(signal));

tap.on('exit', (code, signal) => {
  const done = () => process.exit(code ?? 128 + (signal ? os.constants.signals[signal] : 0));
  if (chosen) return done();
  // tap's `after` drops the template; a run killed before it would leave this run's behind.
  adminQuery(`DROP DATABASE IF EXISTS ${quoteIdentifier(template)} WITH (FORCE)`).then(done, done);
});
