import pg from 'pg';
import type { Knex } from 'knex';
import { migrations } from '../../migrations/index.js';
import { loadConfig } from '../config.js';
import { chooseDatabase } from './embedded-postgres/entry.js';
import { createDb } from './knex.js';

class ListedMigrationSource implements Knex.MigrationSource<string> {
  async getMigrations(): Promise<string[]> {
    return migrations.map((m) => m.name);
  }
  getMigrationName(name: string): string {
    return name;
  }
  async getMigration(name: string): Promise<Knex.Migration> {
    const found = migrations.find((m) => m.name === name);
    if (!found) throw new Error(`unknown migration ${name}`);
    return found.module;
  }
}

/** Creates the database named in the URL when it does not exist yet (fresh machines, `npm start`). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (error) {
    // Another process may have created it between the check and the create.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
}

export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = await db.migrate.latest({ migrationSource: new ListedMigrationSource() });
  return applied as string[];
}

export async function runMigrations(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const db = createDb(databaseUrl, { max: 1 });
  try {
    return await migrateLatest(db);
  } finally {
    await db.destroy();
  }
}

/** `npm run migrate` (the Procfile's release): DATABASE_URL, or the embedded server (started or reused, then left). */
async function main(): Promise<void> {
  loadConfig(); // production refuses to go on without DATABASE_URL (and its other settings)
  const database = await chooseDatabase(process.env, (message, fields) => console.log(message, fields.dataDir));
  try {
    const applied = await runMigrations(database.url);
    console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await database.release();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error && ['ConfigError', 'DatabaseUnavailable'].includes(error.name) ? error.message : error);
    process.exitCode = 1;
  });
}
