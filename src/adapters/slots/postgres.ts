import type { Db } from '../../db/knex.js';
import { defineStatement, runStatement } from '../../db/prepared-statements.js';

/**
 * Rows in `backend_slots`, one per claim. A claim is one prepared call of `backend_slot_take`
 * (migration 20261202020000): a transaction-scoped advisory lock on the key serialises the claims
 * of one key across processes, so the count it checks cannot move under it.
 */
const TAKE = defineStatement('select backend_slot_take(:key, :member, :limit, :claimMs) as taken');
const RELEASE_ALL = defineStatement('delete from backend_slots where member = :member and key = any(:keys::text[])');

export class PostgresSlotStore {
  constructor(private readonly db: Db) {}

  async take(key: string, member: string, limit: number, claimMs: number): Promise<boolean> {
    const { rows } = await runStatement<{ taken: boolean }>(this.db, TAKE, { key, member, limit, claimMs });
    return rows[0]?.taken === true;
  }

  async release(key: string, member: string): Promise<void> {
    await this.releaseAll([key], member);
  }

  async releaseAll(keys: string[], member: string): Promise<void> {
    if (keys.length) await runStatement(this.db, RELEASE_ALL, { keys, member });
  }
}
