import { createHash } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * The server tests create their databases on, through its `postgres` database. `npm test`
 * (setup/run-tap.ts) sets TEST_ADMIN_DATABASE_URL: to DATABASE_URL's server when that is set, else to
 * the embedded server it runs for the suite. A bare `tap` run without it uses the local default.
 */
export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Every template a run names itself starts so (TEST_TEMPLATE_DATABASE may name any other). */
export const TEMPLATE_PREFIX = 'shopwright_tpl_';

/**
 * The migrated template of one test run, so that two runs on one PostgreSQL server (two checkouts,
 * a developer beside CI) never clone, drop or `WITH (FORCE)`-disconnect each other's.
 * TEST_TEMPLATE_DATABASE when set: `npm test` sets a random one (test/setup/run-tap.ts), and it is
 * the override. A bare `tap` run falls back to a name from the tap runner's pid (the parent of
 * tap's before/after scripts and of every test file) and this host, both alive for the whole run.
 */
export function templateDatabaseFor(env: NodeJS.ProcessEnv, runnerPid: number, host = os.hostname()): string {
  if (env.TEST_TEMPLATE_DATABASE) return env.TEST_TEMPLATE_DATABASE;
  const hostTag = createHash('sha256').update(host).digest('hex').slice(0, 8);
  return `${TEMPLATE_PREFIX}${hostTag}_${runnerPid}`;
}

export const TEMPLATE_DATABASE = templateDatabaseFor(process.env, process.ppid);
// Processes this one starts see the same template, whatever their parent.
process.env.TEST_TEMPLATE_DATABASE = TEMPLATE_DATABASE;

/** An SQL identifier, quoted (an override may hold any character). */
export const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh database for one test file, cloned from the migrated template (fast: a file copy). */
export async function createTestDatabase(name: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE ${quoteIdentifier(TEMPLATE_DATABASE)}`);
      if (process.env.TEST_SYNC_COMMIT !== 'on') await adminQuery(`ALTER DATABASE ${quoteIdentifier(name)} SET synchronous_commit TO off`);
      return databaseUrl(name);
    } catch (error) {
      // 55006: another file is cloning the template at this instant.
      if ((error as { code?: string }).code !== '55006' || attempt > 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
}

export async function dropTestDatabase(name: string): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
}

/**
 * A test database the test is done with. PostgreSQL 15's DROP DATABASE waits for a checkpoint of its
 * own (seconds on a busy server, and the server's other clients wait with it), so when the runner
 * gives the run a directory (TEST_RUN_DIR, test/setup/run-tap.ts) the database is only listed there,
 * and the runner drops the run's databases together at the end, a few checkpoints for all of them.
 * Without one (a bare `tap` or `node` run) it is dropped now. For databases with a fresh name only:
 * a listed one stays until the run ends (the drop's FORCE ends any connection left to it).
 */
export async function releaseTestDatabase(name: string): Promise<void> {
  const runDir = process.env.TEST_RUN_DIR;
  if (!runDir) return dropTestDatabase(name);
  appendFileSync(path.join(runDir, `${RELEASED_DATABASES}.${process.pid}`), `${name}\n`);
}

/** One list per releasing process, so that a runner can drop a finished file's databases while others still append to theirs. */
const RELEASED_DATABASES = 'released-databases';

/**
 * Drops the databases released into a run's directory, many at once so that they share checkpoints,
 * and removes their lists: every list, or only those of the processes named in `pids` (processes
 * that have exited, so their lists are complete). tap's `after` step calls it
 * (setup/drop-template-db.ts), the files runner while the run goes on, and the runner again for
 * those of a run stopped before that step.
 */
export async function dropReleasedDatabases(runDir: string, options: { pids?: Iterable<number>; concurrency?: number } = {}): Promise<number> {
  const only = options.pids ? new Set([...options.pids].map((pid) => `${RELEASED_DATABASES}.${pid}`)) : null;
  let lists: string[];
  try {
    lists = readdirSync(runDir).filter((entry) => entry.startsWith(RELEASED_DATABASES) && (!only || only.has(entry)));
  } catch {
    return 0;
  }
  const names = [...new Set(lists.flatMap((list) => readFileSync(path.join(runDir, list), 'utf8').split('\n').filter(Boolean)))];
  const queue = [...names];
  const workers = Array.from({ length: Math.min(options.concurrency ?? 32, queue.length) }, async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) await dropTestDatabase(name);
  });
  await Promise.all(workers);
  for (const list of lists) rmSync(path.join(runDir, list), { force: true });
  return names.length;
}
