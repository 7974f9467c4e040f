import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';

/**
 * `npm run test:unit`, `test:integration`, `test:system` and `test:quick` (unit + integration): the
 * suite's tiers (issue #32), each a folder of dist/test/:
 *
 *   unit         no database, no process
 *   integration  one module per folder, through the HTTP API, its jobs and its tables
 *   system       processes, browsers, clusters, hardening, the embedded server
 *
 * Runs them through run-tap.ts (so with this run's own template database and the statement check)
 * with its files runner (./run-files.ts: plain node processes, no coverage hooks): the coverage floor
 * is for the whole suite, which `npm test` measures through tap. Arguments after the tier names:
 * `--jobs=N`.
 */
const TIERS = ['unit', 'integration', 'system'] as const;

const args = process.argv.slice(2);
const tiers = args.filter((arg) => (TIERS as readonly string[]).includes(arg));
const extra = args.filter((arg) => !(TIERS as readonly string[]).includes(arg));
if (!tiers.length) {
  console.error(`name one or more tiers: ${TIERS.join(', ')}`);
  process.exit(2);
}
const folders = tiers.map((tier) => `dist/test/${tier}`);
const absent = folders.filter((folder) => !existsSync(folder));
if (absent.length) {
  console.error(`${absent.join(', ')} not built: the test files are not in their tiers yet (node scripts/tier-tests.mjs), or the build did not run`);
  process.exit(2);
}

/**
 * The tiers build incrementally (`build:incremental`, without emptying dist/ first): a module whose
 * source was deleted or renamed would stay in dist/ and could still run (a test file) or load (a
 * migration folder), so its output goes here.
 */
function pruneOrphans(folder: string): number {
  let pruned = 0;
  for (const name of readdirSync(folder)) {
    const entry = path.join(folder, name);
    if (statSync(entry).isDirectory()) pruned += pruneOrphans(entry);
    else if (/\.js(\.map)?$/.test(name)) {
      const source = path.relative('dist', entry).replace(/\.js(\.map)?$/, '.ts');
      if (!existsSync(source)) {
        rmSync(entry);
        pruned += 1;
      }
    }
  }
  return pruned;
}
for (const root of ['src', 'test', 'migrations', 'bench']) if (existsSync(path.join('dist', root))) pruneOrphans(path.join('dist', root));

const run = spawn(process.execPath, ['dist/test/setup/run-tap.js', '--files-runner', ...extra, ...folders], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => run.kill(signal));
run.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? os.constants.signals[signal] : 0)));
