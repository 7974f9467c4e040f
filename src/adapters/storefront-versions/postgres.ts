import type { Db } from '../../db/knex.js';
import { sweepExpired } from '../sweep.js';

/** One `backend_values` row per store; an expired row counts as absent (a new version is made). */
export class PostgresStorefrontVersions {
  constructor(private readonly db: Db) {}

  async get(storeId: string): Promise<{ version: string; cacheControl: string } | null> {
    const row: { value: { version: string; cacheControl: string } } | undefined = await this.db('backendValues')
      .where({ key: `sfhttp:${storeId}` })
      .where('expiresAt', '>', this.db.fn.now())
      .first('value');
    return row ? { version: row.value.version, cacheControl: row.value.cacheControl } : null;
  }

  async init(storeId: string, version: string, cacheControl: string): Promise<{ version: string; cacheControl: string }> {
    sweepExpired(this.db, 'backend_values');
    const result = await this.db.raw(
      `INSERT INTO backend_values AS v (key, value, expires_at) VALUES (:key, jsonb_build_object('version', :version::text, 'cacheControl', :cacheControl::text), now() + interval '7 days')
       ON CONFLICT (key) DO UPDATE SET
         value = jsonb_build_object('version', CASE WHEN v.expires_at < now() THEN excluded.value->>'version' ELSE v.value->>'version' END, 'cacheControl', excluded.value->>'cacheControl'),
         expires_at = excluded.expires_at
       RETURNING value->>'version' AS version`,
      { key: `sfhttp:${storeId}`, version, cacheControl }
    );
    return { version: (result.rows[0] as { version: string }).version, cacheControl };
  }

  async drop(storeId: string): Promise<void> {
    await this.db('backendValues').where({ key: `sfhttp:${storeId}` }).delete();
  }
}
