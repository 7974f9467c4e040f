import type { Knex } from 'knex';

/**
 * Admin customer search `?q=` matches anywhere inside the email and the names ("example.com",
 * "smith", "ann smi"), backed by a pg_trgm GIN index on one lower-cased search text. The expression
 * is written once here and in `CUSTOMER_SEARCH_TEXT` (services/customers/customers.ts): they must match.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX IF NOT EXISTS customers_search_trgm_idx ON customers
      USING gin ((lower(email) || ' ' || lower(coalesce(first_name, '')) || ' ' || lower(coalesce(last_name, ''))) gin_trgm_ops);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX IF EXISTS customers_search_trgm_idx;`);
}
