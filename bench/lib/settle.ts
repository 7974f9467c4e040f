import pg from 'pg';

const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Between benchmarks: flush PostgreSQL's dirty pages and give autovacuum a moment, so one
 * benchmark's bulk seeding does not slow the next one's measurements.
 */
export async function settle(ms = 3_000): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query('checkpoint');
  } finally {
    await client.end();
  }
  await new Promise((resolve) => setTimeout(resolve, ms));
}
