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

export function benchDatabaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/shopwright_bench_${name}`;
  if (BENCH_DATABASE_TRANSPORT === 'unix socket') return `postgres://${url.username}@${encodeURIComponent(SOCKET_DIR)}${url.pathname}`;
  return url.toString();
}

/** A freshly created and migrated database for one benchmark (dropped first if it exists). */
export async function freshBenchDatabase(name: string): Promise<string> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS shopwright_bench_${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE shopwright_bench_${name}`);
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
