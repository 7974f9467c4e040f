import type { Db } from '../../db/knex.js';
import type { WindowCounts } from './window-counts.js';
import { sweepExpired } from '../sweep.js';

const key = (bucket: string, window: number) => `${bucket}:${window}`;

/**
 * One row per bucket and window in `backend_counters`, incremented by one atomic
 * `INSERT … ON CONFLICT DO UPDATE … RETURNING` that also reads the previous window's row:
 * concurrent hits from any process serialise on the row, so the count is exact. An expired row (a
 * key reused after its window) starts again at 1.
 */
export class PostgresRateLimitStore {
  constructor(private readonly db: Db) {}

  async hit(bucket: string, window: number, ttlSec: number): Promise<WindowCounts> {
    sweepExpired(this.db, 'backend_counters');
    const result = await this.db.raw(
      `WITH hit AS (
         INSERT INTO backend_counters AS c (key, count, expires_at) VALUES (?, 1, now() + make_interval(secs => ?))
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN c.expires_at < now() THEN 1 ELSE c.count + 1 END,
           expires_at = CASE WHEN c.expires_at < now() THEN excluded.expires_at ELSE c.expires_at END
         RETURNING count
       )
       SELECT (SELECT count FROM hit) AS current,
              coalesce((SELECT count FROM backend_counters WHERE key = ? AND expires_at > now()), 0) AS previous`,
      [key(bucket, window), ttlSec, key(bucket, window - 1)]
    );
    const row = result.rows[0] as { current: number; previous: number };
    return { current: Number(row.current), previous: Number(row.previous) };
  }

  async unhit(bucket: string, window: number): Promise<void> {
    await this.db('backendCounters').where('key', key(bucket, window)).where('count', '>', 0).decrement('count', 1);
  }

  async read(buckets: string[], window: number): Promise<WindowCounts[]> {
    if (buckets.length === 0) return [];
    const keys = buckets.flatMap((bucket) => [key(bucket, window), key(bucket, window - 1)]);
    const rows: Array<{ key: string; count: number }> = await this.db('backendCounters').whereIn('key', keys).where('expiresAt', '>', this.db.fn.now()).select('key', 'count');
    const byKey = new Map(rows.map((row) => [row.key, Number(row.count)]));
    return buckets.map((bucket) => ({ current: byKey.get(key(bucket, window)) ?? 0, previous: byKey.get(key(bucket, window - 1)) ?? 0 }));
  }
}
