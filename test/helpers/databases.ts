import pg from 'pg';

export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// Overridable so that several checkouts (git worktrees) can run their suites side by side.
export const TEMPLATE_DATABASE = process.env.TEST_TEMPLATE_DATABASE ?? 'shopwright_test_template';

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
      await adminQuery(`CREATE DATABASE "${name}" TEMPLATE ${TEMPLATE_DATABASE}`);
      return databaseUrl(name);
    } catch (error) {
      // 55006: another file is cloning the template at this instant.
      if ((error as { code?: string }).code !== '55006' || attempt > 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
}

export async function dropTestDatabase(name: string): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
