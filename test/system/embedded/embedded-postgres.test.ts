import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import t from 'tap';
import { chooseDatabase } from '../../../src/db/embedded-postgres/entry.js';
import { acquireEmbeddedPostgres } from '../../../src/db/embedded-postgres/index.js';
import { isAlive } from '../../../src/db/embedded-postgres/lease.js';

// Each start of a server is about a second; a busy machine makes it several.
t.setTimeout(180_000);

interface Child {
  process: ChildProcess;
  got: { port: number; startedHere: boolean; url: string };
}

/** Another process using the embedded server in `dir` (test/helpers/embedded-postgres-child.ts). */
async function child(dir: string, as?: { uid: number; gid: number }): Promise<Child> {
  const proc = spawn(process.execPath, ['dist/test/helpers/embedded-postgres-child.js', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(as ?? {})
  });
  let output = '';
  proc.stderr!.on('data', (chunk) => (output += chunk));
  const line = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('\n')) resolve(output.split('\n')[0]!);
    });
    proc.on('exit', (code) => reject(new Error(`child exited ${code}: ${output}`)));
  });
  return { process: proc, got: JSON.parse(line) as Child['got'] };
}

const exited = (proc: ChildProcess) => new Promise<void>((resolve) => (proc.exitCode !== null || proc.signalCode !== null ? resolve() : proc.on('exit', () => resolve())));

async function query<T = Record<string, unknown>>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

const answers = (url: string) => query(url, 'SELECT 1').then(() => true, () => false);

async function postmasterPid(dir: string): Promise<number | null> {
  const text = await readFile(path.join(dir, 'data', 'postmaster.pid'), 'utf8').catch(() => null);
  return text ? Number.parseInt(text, 10) : null;
}

async function newDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-embedded-'));
  // As root the server runs as the postgres user, which must reach the directory.
  await chmod(dir, 0o755);
  return dir;
}

t.test('one server per directory: started by the first process, reused by the next, stopped by the last to leave', async (t) => {
  const dir = await newDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));

  const first = await child(dir);
  t.teardown(() => first.process.kill('SIGKILL'));
  t.equal(first.got.startedHere, true, 'the first process starts the server');
  t.ok(await answers(first.got.url), 'it answers');
  const [settings] = await query<{ version: string; fsync: string }>(first.got.url, "SELECT current_setting('server_version') AS version, current_setting('fsync') AS fsync");
  t.match(settings!.version, /^15\./, 'PostgreSQL 15, the major production runs');
  await query(first.got.url, 'CREATE TABLE kept (value text); INSERT INTO kept VALUES (\'still here\')');
  // Every extension and text-search configuration the migrations use is in the embedded build.
  await query(first.got.url, 'CREATE EXTENSION pg_trgm; CREATE EXTENSION unaccent; CREATE EXTENSION pgcrypto');
  const [search] = await query<{ match: boolean }>(first.got.url, "SELECT to_tsvector('english', 'Running shoes') @@ plainto_tsquery('english', 'run') AS match");
  t.equal(search!.match, true, "the 'english' text-search configuration stems");

  const second = await acquireEmbeddedPostgres({ dir, profile: 'test' });
  t.equal(second.startedHere, false, 'a second process reuses the running server');
  t.equal(second.port, first.got.port, 'on the same port');
  t.same(await query(second.url('postgres'), 'SELECT value FROM kept'), [{ value: 'still here' }]);
  await second.release();
  t.ok(await answers(first.got.url), 'one process leaving does not stop it while another uses it');

  const pid = await postmasterPid(dir);
  first.process.kill('SIGTERM');
  await exited(first.process);
  t.equal(first.process.exitCode, 0, 'the last process left cleanly on SIGTERM');
  t.equal(await postmasterPid(dir), null, 'and stopped the server (no postmaster.pid)');
  t.notOk(isAlive(pid!), 'the postmaster is gone (or a zombie its new parent has yet to reap)');
  t.match(await readFile(path.join(dir, 'postgres.log'), 'utf8'), /database system is shut down/, 'a clean shutdown');

  const again = await acquireEmbeddedPostgres({ dir, profile: 'test' });
  t.equal(again.startedHere, true, 'the next run starts it again');
  t.same(await query(again.url('postgres'), 'SELECT value FROM kept'), [{ value: 'still here' }], 'with the data of the last run');
  await again.release();
});

t.test('after a SIGKILL: the orphaned server is reused; a dead or foreign pid in postmaster.pid is cleared', async (t) => {
  const dir = await newDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));

  // The process that started the server is killed: the server lives on (its own session).
  const crashed = await child(dir);
  await query(crashed.got.url, 'CREATE TABLE kept (value text); INSERT INTO kept VALUES (\'survived\')');
  crashed.process.kill('SIGKILL');
  await exited(crashed.process);
  t.ok(await answers(crashed.got.url), 'the orphaned server still runs');
  const orphan = await acquireEmbeddedPostgres({ dir, profile: 'test' });
  t.equal(orphan.startedHere, false, 'the next process reuses the orphan instead of failing on its postmaster.pid');
  t.equal(orphan.port, crashed.got.port);
  // The dead process is no user any more: this one is the last, and its leaving stops the server.
  await orphan.release();
  t.equal(await postmasterPid(dir), null, 'the killed process does not keep the server alive');

  // The server itself is killed: postmaster.pid stays behind, naming a dead pid.
  const server = await acquireEmbeddedPostgres({ dir, profile: 'test' });
  const pid = (await postmasterPid(dir))!;
  process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
  t.not(await postmasterPid(dir), null, 'a stale postmaster.pid is left behind');
  const restarted = await acquireEmbeddedPostgres({ dir, profile: 'test' });
  t.equal(restarted.startedHere, true, 'a dead pid: the file is removed and the server started');
  t.same(await query(restarted.url('postgres'), 'SELECT value FROM kept'), [{ value: 'survived' }], 'crash recovery kept the data');
  await restarted.release();
  await server.release();
  t.equal(await postmasterPid(dir), null);

  // A stale file whose pid now belongs to another program (here: this test process).
  const stale = await readFile(path.join(dir, 'postgres.log'), 'utf8').then(() => `${process.pid}\n${dir}/data\n0\n1\n\n127.0.0.1\n0 0\nready   \n`);
  await writeFile(path.join(dir, 'data', 'postmaster.pid'), stale);
  const fresh = await acquireEmbeddedPostgres({ dir, profile: 'test' });
  t.equal(fresh.startedHere, true, 'a pid that is not a postgres: the file is removed and the server started');
  t.ok(await answers(fresh.url('postgres')));
  await fresh.release();
});

t.test('as an ordinary user too (root runs PostgreSQL as the OS user postgres; anyone else as themselves)', async (t) => {
  if (process.getuid?.() !== 0) {
    t.pass('this run is an ordinary user: the other tests cover it');
    return;
  }
  const dir = await newDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const nobody = { uid: 65534, gid: 65534 };
  await chown(dir, nobody.uid, nobody.gid);
  const user = await child(dir, nobody);
  t.equal(user.got.startedHere, true);
  const [owner] = await query<{ owner: string }>(user.got.url, "SELECT pg_catalog.pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = 'postgres'");
  t.equal(owner!.owner, 'postgres', 'the superuser role is postgres whoever runs it');
  const pid = (await postmasterPid(dir))!;
  t.match((await readFile(`/proc/${pid}/status`, 'utf8')).match(/^Uid:\s+(\d+)/m)![1], String(nobody.uid), 'the server runs as that user');
  user.process.kill('SIGTERM');
  await exited(user.process);
  t.equal(await postmasterPid(dir), null, 'and stops when it leaves');
});

t.test('no embedded server in production, and a failure names the variable to set', async (t) => {
  await t.rejects(chooseDatabase({ NODE_ENV: 'production' }, () => undefined), { name: 'DatabaseUnavailable', message: /DATABASE_URL/ });
  const chosen = await chooseDatabase({ DATABASE_URL: 'postgres://db.example/shop' }, () => t.fail('no log line for an own server'));
  t.equal(chosen.url, 'postgres://db.example/shop', 'DATABASE_URL selects your own server');
  t.equal(chosen.embedded, null);
  await t.rejects(chooseDatabase({ EMBEDDED_POSTGRES_DIR: '/dev/null/pg' }, () => undefined), {
    name: 'DatabaseUnavailable',
    message: /could not start .*Set DATABASE_URL/s
  });
});

t.test('as root in a directory the postgres user cannot enter: the data is placed where it can, linked from .data/pg', async (t) => {
  if (process.getuid?.() !== 0) {
    t.pass('only root runs PostgreSQL as another user');
    return;
  }
  const parent = await mkdtemp(path.join(os.tmpdir(), 'shopwright-private-'));
  const dir = path.join(parent, 'pg');
  const server = await acquireEmbeddedPostgres({ dir, profile: 'test' });
  const outside = path.dirname(await realpath(path.join(dir, 'data')));
  t.teardown(() => Promise.all([rm(parent, { recursive: true, force: true }), rm(outside, { recursive: true, force: true })]));
  t.equal(server.startedHere, true);
  t.not(outside, dir, 'the data lives outside the unreachable directory');
  t.ok(await answers(server.url('postgres')));
  await server.release();
  t.equal(await postmasterPid(dir), null, 'stopped through the link');

  // The checkout deleted, a new one made at the same path: the cluster left outside is nobody's
  // (its password went with the old checkout), and the new checkout starts with an empty one.
  await rm(parent, { recursive: true, force: true });
  await mkdir(parent, { recursive: true, mode: 0o700 });
  const again = await acquireEmbeddedPostgres({ dir, profile: 'test' });
  t.equal(again.startedHere, true, 'a new clone where an old one stood starts');
  t.equal(path.dirname(await realpath(path.join(dir, 'data'))), outside, 'in the same place outside');
  t.ok(await answers(again.url('postgres')));
  await again.release();
});

t.test('`npm run web` without DATABASE_URL: one log line says where the server runs; SIGTERM stops both', async (t) => {
  const dir = await newDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    PORT: '0',
    HOST: '127.0.0.1',
    EMBEDDED_POSTGRES_DIR: path.join(dir, 'pg'),
    STORAGE_DIR: path.join(dir, 'storage'),
    REDIS_PREFIX: `swt:embedded-web-${process.pid}`
  };
  delete env.DATABASE_URL;
  const web = spawn('npm', ['run', '--silent', 'web'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => {
    if (web.exitCode === null) process.kill(-web.pid!, 'SIGKILL');
  });
  let output = '';
  web.stdout!.on('data', (chunk) => (output += chunk));
  web.stderr!.on('data', (chunk) => (output += chunk));
  for (const until = Date.now() + 120_000; !output.includes('api listening') && web.exitCode === null && Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.match(output, /"msg":"embedded PostgreSQL started at 127\.0\.0\.1:\d+ \(set DATABASE_URL to use your own server\)"/, output.slice(-1500));
  const pid = await postmasterPid(path.join(dir, 'pg'));
  t.ok(pid && isAlive(pid), 'the server runs');
  process.kill(-web.pid!, 'SIGTERM');
  await exited(web);
  t.equal(web.exitCode, 0, 'web stopped cleanly');
  t.equal(await postmasterPid(path.join(dir, 'pg')), null, 'and stopped the server it started');
  t.notOk(isAlive(pid!));
});
