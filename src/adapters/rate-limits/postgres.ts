import type { Db } from '../../db/knex.js';
import { sweepExpired } from '../sweep.js';

/**
 * One row per bucket and window in `backend_counters`, incremented by one atomic
 * `INSERT … ON CONFLICT DO UPDATE … RETURNING`: concurrent hits from any process serialise on the
 * row, so the count is exact. An expired row (a key reused after its window) starts again at 1.
 */
export class PostgresRateLimitStore {
  constructor(private readonly db: Db) {}

  async increment(key: string, ttlSec: number): Promise<number> {
    sweepExpired(this.db, 'backend_counters');
    const result = await this.db.raw(
      `INSERT INTO backend_counters AS c (key, count, expires_at) VALUES (?, 1, now() + make_interval(secs => ?))
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN c.expires_at < now() THEN 1 ELSE c.count + 1 END,
         expires_at = CASE WHEN c.expires_at < now() THEN excluded.expires_at ELSE c.expires_at END
       RETURNING count`,
      [key, ttlSec]
    );
    return Number((result.rows[0] as { count: number }).count);
  }

  async read(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const rows: Array<{ key: string; count: number }> = await this.db('backendCounters').whereIn('key', keys).where('expiresAt', '>', this.db.fn.now()).select('key', 'count');
    const byKey = new Map(rows.map((row) => [row.key, Number(row.count)]));
    return keys.map((key) => byKey.get(key) ?? 0);
  }
}
