import type { Knex } from 'knex';

/**
 * New stores confirm newsletter sign-ups by email (double opt-in) unless they turn it off: anyone
 * holding a storefront token can sign an address up. Only the column default changes: existing
 * stores keep the setting they have (off unless they chose it), so their sign-ups work as before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE stores ALTER COLUMN newsletter_double_opt_in SET DEFAULT true');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE stores ALTER COLUMN newsletter_double_opt_in SET DEFAULT false');
}
