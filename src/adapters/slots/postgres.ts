import type { Db } from '../../db/knex.js';
import { defineStatement, runStatement } from '../../db/prepared-statements.js';

/**
 * One row per key in `backend_slot_claims`, holding its claims (member: claimed at). A claim is one
 * prepared call of `backend_slot_take` (migrations 20261202020000, 20261203020000): the key's row
 * lock serialises the claims of one key across processes, so the count it checks cannot move under
 * it, and every take and release updates that row in place (no index entry per claim).
 */
const TAKE = defineStatement('select backend_slot_take(:key, :member, :limit, :claimMs) as taken');
const RELEASE_ALL = defineStatement('update backend_slot_claims set claims = claims - :member::text where key = any(:keys::text[]) and claims -> :member::text is not null');

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
