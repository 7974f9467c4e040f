import { execFile } from 'node:child_process';
import { appendFile, chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { createDb } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import type { Teardownable } from './app.js';
import { freePort } from './free-port.js';

const run = promisify(execFile);
const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
const DATABASE = 'shopwright';

/**
 * A PostgreSQL primary and its streaming replica of our own, on free ports under a temporary
 * directory: `initdb` the primary (wal_level=replica), migrate it, `pg_basebackup -R` the standby.
 * PostgreSQL refuses to run as root, so on a root machine the servers run as the `postgres` user.
 * The teardown stops both servers and removes the directory.
 */
export interface ReplicaCluster {
  primaryUrl: string;
  replicaUrl: string;
  primary: pg.Pool;
  /** A query on the replica (a new connection each time: the replica may have been restarted). */
  onReplica<Row extends pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<Row[]>;
  /** Replay paused (and waited for: `pg_get_wal_replay_pause_state()` says paused) or resumed. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Resolves once the replica has replayed everything the primary had written when called. */
  caughtUp(): Promise<string>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL program (as `postgres` when we are root). */
function pgRun(program: string, args: string[]) {
  const file = path.join(BIN, program);
  return asRoot ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

export async function startReplicaCluster(t: Teardownable): Promise<ReplicaCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-replica-'));
  const primaryDir = path.join(dir, 'primary');
  const standbyDir = path.join(dir, 'standby');
  let primary: pg.Pool | null = null;
  const started: string[] = [];
  t.teardown(async () => {
    await primary?.end().catch(() => undefined);
    for (const dataDir of started.reverse()) await pgRun('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  await pgRun('initdb', ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const settings = [
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${dir}'`,
    'wal_level = replica',
    'max_wal_senders = 4',
    'fsync = off',
    'shared_buffers = 32MB',
    'max_connections = 60'
  ];
  await appendFile(path.join(primaryDir, 'postgresql.conf'), `\n${settings.join('\n')}\nport = ${primaryPort}\n`);
  const start = async (dataDir: string) => {
    await pgRun('pg_ctl', ['-D', dataDir, '-l', `${dataDir}.log`, '-w', '-t', '30', 'start']);
    if (!started.includes(dataDir)) started.push(dataDir);
  };
  await start(primaryDir);

  const url = (port: number, database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const admin = new pg.Client({ connectionString: url(primaryPort, 'postgres') });
  await admin.connect();
  await admin.query(`create database ${DATABASE}`);
  await admin.end();
  const migrator = createDb(url(primaryPort, DATABASE), { max: 1 });
  try {
    await migrateLatest(migrator);
  } finally {
    await migrator.destroy();
  }

  // The standby: a base backup with the replication settings (-R), on its own port.
  await pgRun('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
  await appendFile(path.join(standbyDir, 'postgresql.conf'), `\nport = ${replicaPort}\n`);
  await start(standbyDir);

  primary = new pg.Pool({ connectionString: url(primaryPort, DATABASE), max: 2 });
  const replicaUrl = url(replicaPort, DATABASE);
  const onReplica = async <Row extends pg.QueryResultRow>(sql: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: replicaUrl });
    await client.connect();
    try {
      return (await client.query<Row>(sql, values)).rows;
    } finally {
      await client.end();
    }
  };
  const pool = primary;
  return {
    primaryUrl: url(primaryPort, DATABASE),
    replicaUrl,
    primary: pool,
    onReplica,
    async pauseReplay() {
      await onReplica('select pg_wal_replay_pause()');
      await until('replay paused', async () => (await onReplica<{ state: string }>('select pg_get_wal_replay_pause_state() as state'))[0]!.state === 'paused');
    },
    async resumeReplay() {
      await onReplica('select pg_wal_replay_resume()');
    },
    async caughtUp() {
      const { rows } = await pool.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
      const lsn = rows[0]!.lsn;
      await until('replica caught up', async () => (await onReplica<{ done: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [lsn]))[0]!.done);
      return lsn;
    },
    async stopReplica() {
      await pgRun('pg_ctl', ['-D', standbyDir, '-m', 'fast', '-w', 'stop']);
    },
    async startReplica() {
      await start(standbyDir);
    }
  };
}
