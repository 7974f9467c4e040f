import type { Knex } from 'knex';

/**
 * A cart's lines are listed in the order they were added (`order by created_at, id`), and an order's
 * lines take that order as their positions. `created_at` held milliseconds, and the lines of a cart
 * created with its items in one request are inserted a few hundred microseconds apart: two in the
 * same millisecond tied and came back in the order of their random ids, so a cart created with
 * [A, B] could list, and become an order of, [B, A]. With microseconds (PostgreSQL's full
 * precision), lines inserted one statement after another no longer tie. Raising a timestamp's
 * precision rewrites nothing (PostgreSQL keeps the stored values).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE cart_items ALTER COLUMN created_at TYPE timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE cart_items ALTER COLUMN created_at TYPE timestamptz(3)');
}
