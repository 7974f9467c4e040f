import type { Knex } from 'knex';

/**
 * Storefront HTTP caching: how long browsers and CDNs may reuse a storefront response
 * (`Cache-Control: public, max-age=…, stale-while-revalidate=…`). Short by default: a CDN serves a
 * catalog change at most `max-age` seconds late, and revalidation (If-None-Match) is cheap.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE stores
      ADD COLUMN storefront_cache_max_age integer NOT NULL DEFAULT 60
        CHECK (storefront_cache_max_age BETWEEN 0 AND 86400),
      ADD COLUMN storefront_cache_stale_while_revalidate integer NOT NULL DEFAULT 300
        CHECK (storefront_cache_stale_while_revalidate BETWEEN 0 AND 604800);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE stores DROP COLUMN storefront_cache_max_age, DROP COLUMN storefront_cache_stale_while_revalidate`);
}
