import type { Db } from '../../db/knex.js';
import { transaction } from '../../db/transaction.js';

/**
 * Rows in `backend_slots`, one per claim. A transaction-scoped advisory lock on the key serialises
 * the claims of one key across processes, so the count it checks cannot move under it.
 */
export class PostgresSlotStore {
  constructor(private readonly db: Db) {}

  async take(key: string, member: string, limit: number, claimMs: number): Promise<boolean> {
    return transaction(this.db, async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 7))', [key]);
      await trx('backendSlots').where({ key }).where('claimedAt', '<', trx.raw(`now() - make_interval(secs => ?)`, [claimMs / 1000])).delete();
      const rows = (await trx('backendSlots').where({ key }).whereNot({ member }).count({ count: '*' })) as Array<{ count: number }>;
      if (Number(rows[0]?.count ?? 0) >= limit) return false;
      await trx.raw('INSERT INTO backend_slots (key, member, claimed_at) VALUES (?, ?, now()) ON CONFLICT (key, member) DO UPDATE SET claimed_at = now()', [key, member]);
      return true;
    });
  }

  async release(key: string, member: string): Promise<void> {
    await this.db('backendSlots').where({ key, member }).delete();
  }
}
