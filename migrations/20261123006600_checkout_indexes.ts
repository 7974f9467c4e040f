import type { Knex } from 'knex';

/**
 * Indexes the checkout path can rely on whatever the statistics say. Three partial indexes had
 * predicates (`status = 'open'`, `state = 'held'`, `status = 'pending'`) that the hot statements
 * also state, so PostgreSQL could pick them with no index condition at all, scanning every open
 * cart or every held reservation of the database for one row, whenever the statistics made them
 * look small (seen on every item add and every confirm of the checkout bench):
 *
 * - `carts_expiry_idx` (open carts by expiry) served nothing: the cleanup deletes every expired
 *   cart, open or not, and reads them sequentially once an hour. Dropped. As a bonus a cart change
 *   (which moves the expiry) no longer writes an index entry, and with room left on each page
 *   (fillfactor 70) the four updates of a checkout can stay on the cart's page (HOT).
 * - `stock_reservations_variant_idx` held only `held` rows; plain, it still finds a variant's
 *   held reservations and now also serves the cascade when a variant is deleted.
 * - `checkout_sessions_cart_idx` held only pending sessions; plain, it also serves the cascade
 *   when the cleanup deletes carts (it read checkout_sessions sequentially once per cart).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS carts_expiry_idx;
    ALTER TABLE carts SET (fillfactor = 70);
    DROP INDEX IF EXISTS stock_reservations_variant_idx;
    CREATE INDEX stock_reservations_variant_idx ON stock_reservations (variant_id);
    DROP INDEX IF EXISTS checkout_sessions_cart_idx;
    CREATE INDEX checkout_sessions_cart_idx ON checkout_sessions (cart_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS checkout_sessions_cart_idx;
    CREATE INDEX checkout_sessions_cart_idx ON checkout_sessions (cart_id) WHERE status = 'pending';
    DROP INDEX IF EXISTS stock_reservations_variant_idx;
    CREATE INDEX stock_reservations_variant_idx ON stock_reservations (variant_id) WHERE state = 'held';
    ALTER TABLE carts RESET (fillfactor);
    CREATE INDEX IF NOT EXISTS carts_expiry_idx ON carts (expires_at) WHERE status = 'open';
  `);
}
