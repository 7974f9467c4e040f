import type { Knex } from 'knex';

/**
 * Indexes for the admin lists' `?sort=` (issue #31): each sort is a keyset over (key, id) within a
 * store, so each page is an index range, whatever the page. The default sorts (newest first), the
 * order number (unique per store) and a product's price within a status already had theirs. The
 * customer name key is the expression `listCustomers` sorts by (services/customers/customers.ts).
 * Amount spent and order totals have none: every order writes them (and an index on amount spent
 * would end the customer row's HOT updates on each order), a cost on checkout for a rarely used
 * sort, which reads the store's rows instead.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX IF NOT EXISTS customers_store_email_sort_idx ON customers (store_id, lower(email), id);
    CREATE INDEX IF NOT EXISTS customers_store_name_sort_idx ON customers (store_id, lower(coalesce(last_name, '') || ' ' || coalesce(first_name, '')), id);
    CREATE INDEX IF NOT EXISTS products_store_title_sort_idx ON products (store_id, lower(title), id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS products_store_title_sort_idx;
    DROP INDEX IF EXISTS customers_store_name_sort_idx;
    DROP INDEX IF EXISTS customers_store_email_sort_idx;
  `);
}
