import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { acquireEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres/index.js';

/**
 * The PostgreSQL server of the run, handed to the helpers as TEST_ADMIN_DATABASE_URL: that variable
 * when set; else DATABASE_URL's server (its `postgres` database); else, with neither, an embedded
 * PostgreSQL of the suite's own under TEST_EMBEDDED_POSTGRES_DIR (`.data/pg-test`, tuned for tests:
 * no fsync), started here or reused from a run beside this one, and left at the end (the last run
 * to leave stops it).
 */
async function testServer(env: NodeJS.ProcessEnv): Promise<EmbeddedPostgres | null> {
  if (env.TEST_ADMIN_DATABASE_URL) return null;
  if (env.DATABASE_URL) {
    const url = new URL(env.DATABASE_URL);
    url.pathname = '/postgres';
    env.TEST_ADMIN_DATABASE_URL = url.toString();
    return null;
  }
  const embedded = await acquireEmbeddedPostgres({ dir: env.TEST_EMBEDDED_POSTGRES_DIR || '.data/pg-test', profile: 'test' });
  env.TEST_ADMIN_DATABASE_URL = embedded.url('postgres');
  console.log(`tests run on an embedded PostgreSQL at ${embedded.host}:${embedded.port} (set DATABASE_URL to use your own server)`);
  return embedded;
}

/**
 * `npm test` after the build: runs tap (arguments passed through) with a template database named
 * for this run, TEST_TEMPLATE_DATABASE=shopwright_tpl_<random>, unless the caller set one. tap
 * hands its environment to its before/after scripts and to every test file, so all of them use
 * this run's template and no other run's (helpers/databases.ts).
 */
const chosen = process.env.TEST_TEMPLATE_DATABASE;
const runStarted = Date.now();
const server = await testServer(process.env);

const template = chosen || `shopwright_tpl_${randomBytes(6).toString('hex')}`;
process.env.TEST_TEMPLATE_DATABASE = template;
// Imported after the name is set: the helpers read it once, at import.
const { adminQuery, dropReleasedDatabases, quoteIdentifier } = await import('../helpers/databases.js');

// Every statement the app sends during the run is logged and checked after the last file: on a
// store-scoped table it names store_id (issue #27's Citus rules). The logger is a preload
// (./statement-log.ts) that every process of the run gets through NODE_OPTIONS: test files, and the
// web and worker processes they spawn. Off with TEST_STATEMENT_CHECK=off, or when the caller logs
// somewhere else itself.
const statementLog =
  process.env.TEST_STATEMENT_CHECK !== 'off' && !process.env.STATEMENT_LOG_DIR ? mkdtempSync(path.join(os.tmpdir(), 'shopwright-run-statements-')) : null;
if (statementLog) process.env.STATEMENT_LOG_DIR = statementLog;
if (process.env.STATEMENT_LOG_DIR) {
  const preload = pathToFileURL(fileURLToPath(new URL('./statement-log.js', import.meta.url))).href;
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import=${preload}`.trim();
}

// The run's own directory (TEST_RUN_DIR), for what its test files leave to the end of the run: the
// databases they are done with, dropped together after the last file (helpers/databases.ts), and the
// OpenAPI document, built by the first file that needs it and read by the others
// (helpers/openapi-contract.ts). Always this run's, even when a run starts another.
const runDir = mkdtempSync(path.join(os.tmpdir(), 'shopwright-run-'));
process.env.TEST_RUN_DIR = runDir;

// Without coverage, tap still records it for its before and after steps (the template's migrations)
// and then reports those few files as "incomplete coverage": noise. Nothing records it then.
if (process.argv.includes('--disable-coverage')) process.env._TAPJS_PROCESSINFO_COVERAGE_ = '0';

/**
 * `--files-runner` (the tiers, setup/run-tier.ts): the files in plain node processes
 * (./run-files.ts) instead of tap's runner, with the same template, statement log and run directory,
 * and .taprc's `before`/`after` steps run here. Arguments: the files or folders, `--jobs=N`.
 */
async function runWithoutTap(args: string[]): Promise<number> {
  const jobsArg = args.find((arg) => arg.startsWith('--jobs='));
  const targets = args.filter((arg) => !arg.startsWith('-'));
  const { collectTestFiles, defaultJobs, runFiles } = await import('./run-files.js');
  const files = collectTestFiles(targets);
  const started = Date.now();
  // Unit files use no database (test/unit: no database, no process), so a unit-only run makes no template.
  const needsDatabase = files.some((file) => !file.split(path.sep).includes('unit'));
  if (needsDatabase) await import('./template-db.js');
  // The databases of finished files are dropped while the others run, a batch every 20 s (a batch
  // shares PostgreSQL's checkpoints): disk work beside the files' CPU work, instead of 285 drops
  // (16 s on two quiet cores) after the last file.
  const finished = new Set<number>();
  let dropping: Promise<unknown> = Promise.resolve();
  const dropFinished = () => {
    const pids = [...finished];
    finished.clear();
    if (pids.length) dropping = dropping.then(() => dropReleasedDatabases(runDir, { pids })).catch(() => undefined); // what failed is dropped at the end
  };
  const dropTimer = setInterval(dropFinished, 20_000);
  const results = await runFiles(files, {
    jobs: jobsArg ? Number(jobsArg.slice('--jobs='.length)) : defaultJobs(),
    timeoutSeconds: 120,
    timesFile: path.join('.data', 'test-times.json'),
    env: process.env,
    onFileDone: (pid) => finished.add(pid)
  });
  clearInterval(dropTimer);
  await dropping;
  if (needsDatabase) await import('./drop-template-db.js');
  const failed = results.filter((result) => !result.ok);
  console.log(`# ${results.length - failed.length}/${results.length} files passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  for (const result of failed) console.log(`#   not ok ${result.file}`);
  return failed.length ? 1 : 0;
}

const runner = process.argv.includes('--files-runner')
  ? runWithoutTap(process.argv.slice(2).filter((arg) => arg !== '--files-runner'))
  : null;

const require = createRequire(import.meta.url);
const tapManifest = require.resolve('tap/package.json');
const tapBin = path.join(path.dirname(tapManifest), (require(tapManifest) as { bin: { tap: string } }).bin.tap);

const tap = runner ? null : spawn(process.execPath, [tapBin, ...process.argv.slice(2)], { stdio: 'inherit' });
// Passed on, so that tap still runs its `after` step (and reports) when the run is stopped.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => (tap ? tap.kill(signal) : process.exit(130)));

/** The run's statements against the Citus rules, printed: a passing run fails on a violation. */
async function checkStatements(code: number | null): Promise<number | null> {
  if (!statementLog) return code;
  try {
    const { readStatementLog, statementViolations } = await import('../helpers/citus-statements.js');
    const statements = readStatementLog(statementLog);
    const violations = statementViolations(statements);
    console.log(`# statement check: ${statements.length} statements logged by the app's processes; ${violations.length} on a store-scoped table without store_id`);
    for (const v of violations) console.log(`#   not ok [${v.tables.join(', ')}] ${v.sql}`);
    if (violations.length) console.log('# name store_id in each, or mark a legitimate cross-store statement (test/helpers/citus-statements.ts, docs/scaling.md)');
    return violations.length && code === 0 ? 1 : code;
  } finally {
    rmSync(statementLog, { recursive: true, force: true });
  }
}

/** The databases the run's files released that tap's `after` step did not drop (a stopped run); then the run's directory goes. */
async function dropDatabases(): Promise<void> {
  try {
    await dropReleasedDatabases(runDir);
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
}

async function finish(tapCode: number | null, signal: NodeJS.Signals | null): Promise<void> {
  const checked = await checkStatements(tapCode).catch((error: Error) => (console.log(`# statement check failed: ${error.message}`), 1));
  // Last, so that a log read from its tail names what failed (./failure-summary.ts).
  if (tap && tapCode !== 0) {
    const { printFailedTests } = await import('./failure-summary.js');
    try {
      // tap fails a run whose coverage is under .taprc's floor without a word when it prints the
      // text table: say so, with the summary printed above (stop 45's CI failed that way).
      if (printFailedTests(path.join('.tap', 'test-results'), runStarted) === 0) {
        console.log(`# tap exited ${tapCode ?? signal} with no failed test: a coverage figure under .taprc's floor (the summary above), or a file that did not finish`);
      }
    } catch (error) {
      console.log(`# reading tap's record of the failures failed: ${(error as Error).message}`);
    }
  }
  const code = await dropDatabases().then(
    () => checked,
    (error: Error) => (console.log(`# dropping the run's test databases failed: ${error.message}`), checked || 1)
  );
  const exit = () => process.exit(code ?? 128 + (signal ? os.constants.signals[signal] : 0));
  const done = () => (server ? server.release().then(exit, exit) : exit());
  if (chosen) return done();
  // tap's `after` drops the template; a run killed before it would leave this run's behind.
  adminQuery(`DROP DATABASE IF EXISTS ${quoteIdentifier(template)} WITH (FORCE)`).then(done, done);
}

if (tap) tap.on('exit', (code, signal) => void finish(code, signal));
else runner!.then((code) => finish(code, null), (error: Error) => (console.error(error), finish(1, null)));
