import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import t from 'tap';
import { ADMIN_DATABASE_URL, adminQuery, quoteIdentifier, TEMPLATE_DATABASE, TEMPLATE_PREFIX, templateDatabaseFor } from '../../helpers/databases.js';

// Two whole tap runs (each migrating its own template) on a machine that may be busy.
t.setTimeout(360_000);

const dist = path.resolve('dist/test');

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

async function waitForFile(file: string, run: { exited: boolean; output: string }, ms = 150_000): Promise<void> {
  const until = Date.now() + ms;
  while (!existsSync(file)) {
    if (run.exited || Date.now() > until) throw new Error(`no ${path.basename(file)}; the run said:\n${run.output.slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A test file for the nested runs: clones its run's template, then again when told to (after the other run has ended). */
const fixture = (databases: string) => `
import { existsSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { createTestDatabase, dropTestDatabase, TEMPLATE_DATABASE } from ${JSON.stringify(databases)};
const run = process.env.SIDE_BY_SIDE_RUN;
const dir = process.env.SIDE_BY_SIDE_DIR;
const cloneOnce = async (step) => {
  const name = 'sw_test_side_by_side_' + run + '_' + step + '_' + process.pid;
  await createTestDatabase(name);
  await dropTestDatabase(name);
};
t.test('clones its template before, while and after the other run', async (t) => {
  await cloneOnce(1);
  writeFileSync(dir + '/' + run + '.template', TEMPLATE_DATABASE);
  while (!existsSync(dir + '/' + run + '.go')) await new Promise((resolve) => setTimeout(resolve, 50));
  await cloneOnce(2);
  t.pass('cloned after the other run ended');
});
`;

t.test('two test runs on one server side by side: each migrates, clones and drops only its own template', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-side-by-side-'));
  const bystander = `${TEMPLATE_PREFIX}bystander_${process.pid}`;
  await adminQuery(`CREATE DATABASE ${quoteIdentifier(bystander)}`);
  const runs: Array<ChildProcess & { run: { exited: boolean; output: string; code: Promise<number | null> } }> = [];
  t.teardown(async () => {
    for (const child of runs) if (!child.run.exited) child.kill('SIGKILL');
    for (const file of ['a', 'b']) {
      const name = await readFile(path.join(dir, `${file}.template`), 'utf8').catch(() => null);
      if (name) await adminQuery(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
    }
    await adminQuery(`DROP DATABASE IF EXISTS ${quoteIdentifier(bystander)} WITH (FORCE)`);
    await rm(dir, { recursive: true, force: true });
  });

  // A project of its own, so that the nested runs keep their .tap/ state away from this run's.
  await symlink(await realpath('node_modules'), path.join(dir, 'node_modules'));
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'side-by-side', private: true, type: 'module' }));
  await writeFile(
    path.join(dir, '.taprc'),
    ['plugin:', '  - "!@tapjs/typescript"', `before: ${path.join(dist, 'setup/template-db.js')}`, `after: ${path.join(dist, 'setup/drop-template-db.js')}`, 'disable-coverage: true', 'timeout: 200', ''].join('\n')
  );
  await writeFile(path.join(dir, 'side-by-side.test.mjs'), fixture(pathToFileURL(path.join(dist, 'helpers/databases.js')).href));

  // The environment of someone starting a run from a shell: none of this run's tap or template settings.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(TAP|_TAPJS)|^NODE_OPTIONS$|^TEST_TEMPLATE_DATABASE$/.test(key)));
  const require = createRequire(import.meta.url);
  const tapManifest = require.resolve('tap/package.json');
  const tapBin = path.join(path.dirname(tapManifest), (require(tapManifest) as { bin: { tap: string } }).bin.tap);
  const start = (run: string, command: string[]) => {
    const child = spawn(process.execPath, [...command, 'side-by-side.test.mjs'], { cwd: dir, env: { ...env, SIDE_BY_SIDE_RUN: run, SIDE_BY_SIDE_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    const state = { exited: false, output: '', code: new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))) };
    void state.code.then(() => (state.exited = true));
    child.stdout!.on('data', (chunk) => (state.output += chunk));
    child.stderr!.on('data', (chunk) => (state.output += chunk));
    const withRun = Object.assign(child, { run: state });
    runs.push(withRun);
    return withRun;
  };

  // Run a as `npm test` starts it (the wrapper names the template); run b as a bare `tap` (the fallback).
  const a = start('a', [path.join(dist, 'setup/run-tap.js')]);
  await waitForFile(path.join(dir, 'a.template'), a.run);
  const b = start('b', [tapBin]);
  await waitForFile(path.join(dir, 'b.template'), b.run);
  const templateA = await readFile(path.join(dir, 'a.template'), 'utf8');
  const templateB = await readFile(path.join(dir, 'b.template'), 'utf8');

  t.match(templateA, /^shopwright_tpl_[0-9a-f]{12}$/, 'npm test names a template of its own');
  t.match(templateB, /^shopwright_tpl_[0-9a-f]{8}_\d+$/, 'a bare tap run names one from its runner');
  t.not(templateA, templateB);
  t.not(templateA, TEMPLATE_DATABASE, 'neither is the template of this run');
  t.not(templateB, TEMPLATE_DATABASE);
  t.ok(await databaseExists(templateA), "b's before step left a's template alone");

  // a ends first: its after step drops its template while b still clones its own.
  await writeFile(path.join(dir, 'a.go'), '');
  t.equal(await a.run.code, 0, `run a passed:\n${a.run.output.slice(-3000)}`);
  t.notOk(await databaseExists(templateA), 'a dropped its template');
  t.ok(await databaseExists(templateB), "a's after step left b's template alone");
  await writeFile(path.join(dir, 'b.go'), '');
  t.equal(await b.run.code, 0, `run b cloned its template after a ended:\n${b.run.output.slice(-3000)}`);
  t.notOk(await databaseExists(templateB), 'b dropped its template');

  t.ok(await databaseExists(TEMPLATE_DATABASE), "this run's template is still there");
  t.ok(await databaseExists(bystander), 'as is any other database named like a template');
});

t.test('the template name: an override wins; otherwise one per runner and host', async (t) => {
  t.equal(templateDatabaseFor({ TEST_TEMPLATE_DATABASE: 'shopwright_tpl_mine' }, 42), 'shopwright_tpl_mine');
  const one = templateDatabaseFor({}, 42, 'host-one');
  t.equal(templateDatabaseFor({}, 42, 'host-one'), one, 'stable within a run (every process of it agrees)');
  t.not(templateDatabaseFor({}, 43, 'host-one'), one, 'another runner, another template');
  t.not(templateDatabaseFor({}, 42, 'host-two'), one, 'the same pid on another host (a container), another template');
  t.ok(one.length <= 63, 'a PostgreSQL identifier');
  t.equal(process.env.TEST_TEMPLATE_DATABASE, TEMPLATE_DATABASE, 'processes a test starts inherit the name');
});
