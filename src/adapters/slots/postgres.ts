import { Batched } from '../../db/batched.js';
import type { Db } from '../../db/knex.js';
import { defineStatement, runStatement } from '../../db/prepared-statements.js';
import { sweepExpired } from '../sweep.js';

/**
 * One row per key in `backend_slot_claims`, holding its claims (member: claimed at). A claim is
 * `backend_slot_take` (migrations 20261202020000, 20261203020000): the key's row lock serialises
 * the claims of one key across processes, so the count it checks cannot move under it, and every
 * take and release updates that row in place (no index entry per claim).
 *
 * Claims and releases made about the same time in this process go as one call each
 * (`backend_slot_take_many`, `backend_slot_release_many`, migration 20261203030000; Batched: a lone
 * call waits for nothing but its own statement): a webhook delivery makes two claims and a release,
 * which were three statements and three commits of their own per delivery.
 *
 * An idle key's row (no claim in the last hour) is swept now and then (../sweep.ts), as Redis
 * expires its sorted set: one row per endpoint, host, user, API key and store ever limited
 * would otherwise stay for good.
 */
const TAKE_MANY = defineStatement('select backend_slot_take_many(:keys::text[], :members::text[], :limits::int[], :claimMs::float8[]) as taken');
const RELEASE_MANY = defineStatement('select backend_slot_release_many(:keys::text[], :members::text[])');

interface Claim {
  key: string;
  member: string;
  limit: number;
  claimMs: number;
}

export class PostgresSlotStore {
  private readonly takes: Batched<Claim, boolean>;
  private readonly releases: Batched<{ keys: string[]; member: string }, void>;

  constructor(private readonly db: Db) {
    this.takes = new Batched<Claim, boolean>(async (claims) => {
      const { rows } = await runStatement<{ taken: boolean[] }>(db, TAKE_MANY, {
        keys: claims.map((c) => c.key), members: claims.map((c) => c.member), limits: claims.map((c) => c.limit), claimMs: claims.map((c) => c.claimMs)
      });
      return claims.map((_, i) => rows[0]?.taken[i] === true);
    });
    this.releases = new Batched<{ keys: string[]; member: string }, void>(async (releases) => {
      const keys = releases.flatMap((r) => r.keys);
      await runStatement(db, RELEASE_MANY, { keys, members: releases.flatMap((r) => r.keys.map(() => r.member)) });
      return releases.map(() => undefined);
    });
  }

  take(key: string, member: string, limit: number, claimMs: number): Promise<boolean> {
    sweepExpired(this.db, 'backend_slot_claims');
    return this.takes.call({ key, member, limit, claimMs });
  }

  async release(key: string, member: string): Promise<void> {
    await this.releaseAll([key], member);
  }

  async releaseAll(keys: string[], member: string): Promise<void> {
    if (keys.length) await this.releases.call({ keys, member });
  }
}
