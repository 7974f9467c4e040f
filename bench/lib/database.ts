import pg from 'pg';
import { createDb } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';

const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function benchDatabaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/shopwright_bench_${name}`;
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
