import type { Knex } from 'knex';

/**
 * Store foreign keys that each checkout row paid for nothing (issue #38 item 1).
 *
 * A cart item, a checkout session, a stock hold, an order item and an order's timeline event each
 * reference their store twice: through `store_id -> stores` and through their composite key to
 * their parent, (store_id, cart_id) -> carts, (store_id, cart_id) -> carts, (store_id, session_id)
 * -> checkout_sessions, (store_id, order_id) -> orders, (store_id, order_id) -> orders. The parent
 * column is NOT NULL in all five, so the composite key always checks, and the parent's own row
 * references the store; a deleted store still takes these rows with their parents (ON DELETE
 * CASCADE all the way down). The second check was one more lookup and one more FOR KEY SHARE lock
 * per row on the store's single row, which every concurrent checkout of the store shares (a
 * MultiXact and a WAL record per lock). Same reasoning as 20261129011000 for variants and the ledger.
 */
const REDUNDANT = [
  ['cart_items', 'cart_items_store_id_fkey'],
  ['checkout_sessions', 'checkout_sessions_store_id_fkey'],
  ['stock_reservations', 'stock_reservations_store_id_fkey'],
  ['order_items', 'order_items_store_id_fkey'],
  ['order_events', 'order_events_store_id_fkey']
] as const;

export async function up(knex: Knex): Promise<void> {
  for (const [table, constraint] of REDUNDANT) await knex.raw(`ALTER TABLE ${table} DROP CONSTRAINT ${constraint}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, constraint] of REDUNDANT) {
    await knex.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${constraint} FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
  }
}
