import type { Knex } from 'knex';

/**
 * The admin lists' substring searches (`?q=`) scanned every row of the store: collections by title
 * or slug (services/catalog/collections.ts), discounts by code (discounts/discounts.ts: a store may
 * hold tens of thousands of one-off codes), campaigns by subject (marketing/campaigns.ts). Each now
 * has a pg_trgm GIN index on the very expression its query filters on (`lower(<column>)`); pg_trgm
 * was created by 20261123002100_customer_search.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX IF NOT EXISTS collections_search_trgm_idx ON collections USING gin (lower(title) gin_trgm_ops, lower(slug) gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS discounts_code_trgm_idx ON discounts USING gin (lower(code) gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS campaigns_subject_trgm_idx ON campaigns USING gin (lower(subject) gin_trgm_ops);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS collections_search_trgm_idx, discounts_code_trgm_idx, campaigns_subject_trgm_idx');
}
