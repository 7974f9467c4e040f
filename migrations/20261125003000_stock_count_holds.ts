import type { Knex } from 'knex';

/**
 * A stock count below what open checkouts hold shortens the newest holds (services/checkout/
 * reservations.ts, lockStockHolds), possibly to nothing: a hold of 0 units stays `held` so its
 * session still completes or expires as usual, and gives nothing back when it expires. The new
 * check is weaker than the old one, so it is added NOT VALID and validated without blocking writes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE stock_reservations DROP CONSTRAINT IF EXISTS stock_reservations_quantity_check;
    ALTER TABLE stock_reservations ADD CONSTRAINT stock_reservations_quantity_check CHECK (quantity >= 0) NOT VALID;
    ALTER TABLE stock_reservations VALIDATE CONSTRAINT stock_reservations_quantity_check;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM stock_reservations WHERE quantity = 0;
    ALTER TABLE stock_reservations DROP CONSTRAINT IF EXISTS stock_reservations_quantity_check;
    ALTER TABLE stock_reservations ADD CONSTRAINT stock_reservations_quantity_check CHECK (quantity > 0);
  `);
}
