import type { Knex } from 'knex';
import { customerCountsFunction } from './20261123006700_customer_counts_early_exit.js';

/**
 * The customer-count trigger picks its shard by backend (connection) instead of at random. With
 * random shards, concurrent subscribes of one store met on the same shard row about one time in
 * sixteen per pair and waited for each other's commit (WAL flush included). A pool's connections
 * have consecutive pids, so with 64 shards each keeps to its own row. The function is otherwise
 * 20261123006700's.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(customerCountsFunction(true, '(pg_backend_pid() % 64)::smallint'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(customerCountsFunction(true));
}
