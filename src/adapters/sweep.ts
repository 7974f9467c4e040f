import type { Db } from '../db/knex.js';

const SWEEP_EVERY_MS = 60_000;
const lastSweep = new WeakMap<Db, Map<string, number>>();

/**
 * Deletes a table's expired rows at most once a minute per process and table, in the background
 * (what Redis's key expiry does): readers ignore expired rows anyway, this only bounds the table.
 */
export function sweepExpired(db: Db, table: 'backend_counters' | 'backend_values'): void {
  let byTable = lastSweep.get(db);
  if (!byTable) lastSweep.set(db, (byTable = new Map()));
  const now = Date.now();
  if (now - (byTable.get(table) ?? 0) < SWEEP_EVERY_MS) return;
  byTable.set(table, now);
  void db
    .raw(`DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE expires_at < now() LIMIT 5000 FOR UPDATE SKIP LOCKED)`)
    .catch(() => undefined);
}
