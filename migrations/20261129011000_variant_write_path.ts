import type { Knex } from 'knex';

/**
 * What every new variant and ledger row paid for nothing (issue #33: a product import writes
 * 1,000 of each per batch, and they were half of its PostgreSQL time).
 *
 * - `product_variants_store_id_fkey` and `inventory_ledger_store_id_fkey`: each row's store is
 *   already held by its composite key to its parent, (store_id, product_id) -> products and
 *   (store_id, variant_id) -> product_variants, whose own rows reference the store; a deleted store
 *   still takes its variants and ledger through products (ON DELETE CASCADE all the way down). The
 *   second check was a second lookup and row lock per row (about 20 ms of each 1,000-row batch).
 * - `inventory_ledger_variant_idx (variant_id, created_at DESC)`: every read of the ledger names
 *   its store (the statement check of the tests), and `inventory_ledger_history_idx (store_id,
 *   variant_id, created_at DESC, id DESC)` serves those reads and the cascade from a deleted variant
 *   (the foreign key is (store_id, variant_id)). One random-key index fewer to write per ledger row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE product_variants DROP CONSTRAINT product_variants_store_id_fkey');
  await knex.raw('ALTER TABLE inventory_ledger DROP CONSTRAINT inventory_ledger_store_id_fkey');
  await knex.raw('DROP INDEX inventory_ledger_variant_idx');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX inventory_ledger_variant_idx ON inventory_ledger (variant_id, created_at DESC)');
  await knex.raw('ALTER TABLE inventory_ledger ADD CONSTRAINT inventory_ledger_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE');
  await knex.raw('ALTER TABLE product_variants ADD CONSTRAINT product_variants_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE');
}
