import type { Knex } from 'knex';

/**
 * Whether a checkout session was ever opened for the cart. A cart change locks the cart row and
 * must then cancel the cart's pending sessions; the flag, read with the lock (always the latest row
 * version), tells when there can be none, which saves that read on every change before checkout.
 * Set in the statement that inserts a session (under the same cart lock), never cleared.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE carts ADD COLUMN checkout_opened boolean NOT NULL DEFAULT false;
    UPDATE carts SET checkout_opened = true WHERE EXISTS (SELECT 1 FROM checkout_sessions s WHERE s.cart_id = carts.id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE carts DROP COLUMN IF EXISTS checkout_opened');
}
