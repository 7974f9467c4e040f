import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFile, chmod, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { Binaries } from './binaries.js';
import { exists, isAlive } from './lease.js';
import type { RunAs } from './os-user.js';

/** The files of one embedded server, all under its directory (`.data/pg` by default). */
export interface ClusterPaths {
  dir: string;
  /** PGDATA. */
  data: string;
  /** PostgreSQL's own log (pg_ctl -l). */
  log: string;
  /** The superuser's password (mode 0600), read by every process that uses the server. */
  passwordFile: string;
  /** The port of the last start, tried first on the next one. */
  portFile: string;
}

export const pathsOf = (dir: string): ClusterPaths => ({
  dir,
  data: path.join(dir, 'data'),
  log: path.join(dir, 'postgres.log'),
  passwordFile: path.join(dir, 'password'),
  portFile: path.join(dir, 'port')
});

export const SUPERUSER = 'postgres';
export const HOST = '127.0.0.1';

/** postgresql.conf settings, written at every start (an include of the main file). */
export type Settings = Record<string, string | number>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Output {
  code: number | null;
  text: string;
}

function runProgram(file: string, args: string[], who: RunAs, extraEnv: NodeJS.ProcessEnv = {}): Promise<Output> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      // Its own session: Ctrl-C in the terminal reaches our process, which stops the server itself
      // after the last query (pg_ctl also puts the postmaster in a session of its own).
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C', ...extraEnv },
      ...(who.uid !== undefined ? { uid: who.uid, gid: who.gid } : {})
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, text }));
  });
}

/** A fresh cluster in `paths.data`: UTF-8, the C.UTF-8 locale where the OS has it (else C), password auth. */
export async function initCluster(bin: Binaries, paths: ClusterPaths, who: RunAs): Promise<void> {
  await mkdir(paths.dir, { recursive: true });
  // As root, the postgres user must reach the data directory through this one.
  if (who.uid !== undefined) await chmod(paths.dir, 0o755);
  await rm(paths.data, { recursive: true, force: true });
  await mkdir(paths.data, { mode: 0o700 });
  await who.own(paths.data);
  const password = randomBytes(18).toString('base64url');
  await writeFile(paths.passwordFile, password, { mode: 0o600 });
  // Beside the data directory: where the user running initdb can read it.
  const pwfile = path.join(path.dirname(paths.data), `initdb-password.${process.pid}`);
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  await who.own(pwfile);
  try {
    let last: Output = { code: null, text: '' };
    for (const locale of ['C.UTF-8', 'C']) {
      last = await runProgram(
        bin.initdb,
        ['-D', paths.data, '-U', SUPERUSER, '-A', 'scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', `--locale=${locale}`, '--no-instructions'],
        who
      );
      if (last.code === 0) break;
      await rm(paths.data, { recursive: true, force: true });
      await mkdir(paths.data, { mode: 0o700 });
      await who.own(paths.data);
    }
    if (last.code !== 0) throw new Error(`initdb failed: ${lastLines(last.text)}`);
  } finally {
    await rm(pwfile, { force: true });
  }
  await appendFile(path.join(paths.data, 'postgresql.conf'), "\n# Shopwright's embedded server (rewritten at every start)\ninclude_if_exists = 'shopwright.conf'\n");
}

const lastLines = (text: string, count = 6) => text.trim().split('\n').slice(-count).join(' | ');

export interface Postmaster {
  pid: number;
  port: number;
  status: string;
}

/** postmaster.pid: pid, data dir, start time, port, socket dir, listen address, shmem key, status. */
export async function readPostmaster(paths: ClusterPaths): Promise<Postmaster | null> {
  let text: string;
  try {
    text = await readFile(path.join(paths.data, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  const lines = text.split('\n');
  return { pid: Number.parseInt(lines[0] ?? '', 10), port: Number.parseInt(lines[3] ?? '', 10), status: (lines[7] ?? '').trim() };
}

/** Whether `pid` is a postgres process (Linux: by /proc; elsewhere: any live process counts). */
export async function isPostgres(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return false;
  try {
    return (await readFile(`/proc/${pid}/comm`, 'utf8')).trim() === 'postgres';
  } catch {
    return process.platform !== 'linux';
  }
}

export const readPassword = (paths: ClusterPaths) => readFile(paths.passwordFile, 'utf8').then((text) => text.trim());

/** Whether the server on `port` answers a query with our password. */
export async function answers(port: number, password: string, timeoutMs = 2_000): Promise<boolean> {
  const client = new pg.Client({ host: HOST, port, user: SUPERUSER, password, database: 'postgres', connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, HOST, () => probe.close(() => resolve(true)));
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The last run's port when it is still free (stable URLs for psql between runs), else any free one. */
export async function choosePort(paths: ClusterPaths, avoid: number[] = []): Promise<number> {
  const previous = Number.parseInt(await readFile(paths.portFile, 'utf8').catch(() => ''), 10);
  if (Number.isInteger(previous) && previous > 0 && !avoid.includes(previous) && (await portIsFree(previous))) return previous;
  return freePort();
}

/** Starts the server on `port` and waits until it accepts connections. */
export async function startCluster(bin: Binaries, paths: ClusterPaths, who: RunAs, port: number, settings: Settings): Promise<void> {
  const all: Settings = { ...settings, port };
  const conf = Object.entries(all).map(([name, value]) => `${name} = ${typeof value === 'number' ? value : `'${value.replace(/'/g, "''")}'`}`);
  const confFile = path.join(paths.data, 'shopwright.conf');
  await writeFile(confFile, `${conf.join('\n')}\n`);
  await chmod(confFile, 0o644);
  await (await open(paths.log, 'a')).close();
  await who.own(paths.log);
  const result = await runProgram(bin.pgCtl, ['start', '-D', paths.data, '-l', paths.log, '-w', '-t', '60', '-s'], who);
  if (result.code !== 0) {
    const log = await readFile(paths.log, 'utf8').catch(() => '');
    throw new Error(`pg_ctl start failed: ${lastLines(`${result.text}\n${log}`)}`);
  }
  await writeFile(paths.portFile, String(port));
}

/** Fast shutdown (SIGINT: sessions end, a checkpoint is written); SIGQUIT if it takes over `timeoutMs`. */
export async function stopPostmaster(paths: ClusterPaths, pid: number, timeoutMs = 30_000): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGINT');
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(25);
  if (isAlive(pid)) {
    signal('SIGQUIT');
    const last = Date.now() + 5_000;
    while (isAlive(pid) && Date.now() < last) await sleep(25);
  }
  // A postmaster that exited removes its pid file; one that was killed leaves it behind.
  if (await exists(path.join(paths.data, 'postmaster.pid'))) {
    const left = await readPostmaster(paths);
    if (left?.pid === pid) await rm(path.join(paths.data, 'postmaster.pid'), { force: true });
  }
}
