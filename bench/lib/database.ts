import { existsSync } from 'node:fs';
import pg from 'pg';
import { createDb } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';

const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const SOCKET_DIR = '/var/run/postgresql';

/**
 * How the bench servers reach PostgreSQL: through its unix socket when it runs on this machine
 * (what a same-host deployment should do: about half the CPU per round trip of TCP loopback on
 * this VM), else TCP. `BENCH_DATABASE_TRANSPORT=tcp` forces TCP for comparison.
 */
export const BENCH_DATABASE_TRANSPORT: 'unix socket' | 'tcp' =
  process.env.BENCH_DATABASE_TRANSPORT !== 'tcp' && existsSync(`${SOCKET_DIR}/.s.PGSQL.5432`) ? 'unix socket' : 'tcp';

/** BENCH_DATABASE_SUFFIX=x names the databases shopwright_bench_<name>_x: benches in two checkouts do not drop each other's. */
function databaseName(name: string): string {
  const suffix = process.env.BENCH_DATABASE_SUFFIX ?? '';
  if (!/^[a-z0-9_]*$/.test(suffix)) throw new Error('BENCH_DATABASE_SUFFIX may hold only a-z, 0-9 and _');
  return `shopwright_bench_${name}${suffix ? `_${suffix}` : ''}`;
}

export function benchDatabaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${databaseName(name)}`;
  if (BENCH_DATABASE_TRANSPORT === 'unix socket') return `postgres://${url.username}@${encodeURIComponent(SOCKET_DIR)}${url.pathname}`;
  return url.toString();
}

/** A freshly created and migrated database for one benchmark (dropped first if it exists). */
export async function freshBenchDatabase(name: string): Promise<string> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${databaseName(name)} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${databaseName(name)}`);
  } finally {
    await client.end();
  }
  const url = benchDatabaseUrl(name);
  const db = createDb(url, { max: 1 });
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  return url;
}
