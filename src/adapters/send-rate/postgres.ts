import type { Db } from '../../db/knex.js';
import { sweepExpired } from '../sweep.js';

/**
 * The schedule as one `backend_values` row moved by a single `INSERT … ON CONFLICT DO UPDATE …
 * RETURNING`: the row lock serialises every worker's reservation, and the clock is PostgreSQL's
 * (`clock_timestamp()`), the same for all of them.
 */
const RESERVE = `
WITH t AS (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000000)::numeric AS now_us)
INSERT INTO backend_values AS v (key, value, expires_at)
SELECT :key, to_jsonb(t.now_us + :span::numeric), to_timestamp(((t.now_us + :span::numeric) / 1000000)::float8) + interval '60 seconds' FROM t
ON CONFLICT (key) DO UPDATE SET
  value = to_jsonb(greatest(CASE WHEN v.expires_at < now() THEN 0 ELSE (v.value #>> '{}')::numeric END, (SELECT now_us FROM t)) + :span::numeric),
  expires_at = to_timestamp(((greatest(CASE WHEN v.expires_at < now() THEN 0 ELSE (v.value #>> '{}')::numeric END, (SELECT now_us FROM t)) + :span::numeric) / 1000000)::float8) + interval '60 seconds'
RETURNING (value #>> '{}')::float8 AS after`;

export class PostgresSendRateStore {
  constructor(private readonly db: Db) {}

  async reserve(key: string, count: number, intervalUs: number): Promise<number> {
    sweepExpired(this.db, 'backend_values');
    const span = count * intervalUs;
    const result = await this.db.raw(RESERVE, { key, span });
    return Number((result.rows[0] as { after: number }).after) - span;
  }
}
