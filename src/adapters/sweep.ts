import type { Db } from '../db/knex.js';

const SWEEP_EVERY_MS = 60_000;
const lastSweep = new WeakMap<Db, Map<string, number>>();

/**
 * A key's slot row is idle when no claim was made under it for this long: longer than any claim
 * time taken here (webhook deliveries 15 s, event streams 6 min), so every claim in it has lapsed.
 */
const SLOT_ROW_IDLE_MS = 3_600_000;

/** What an expired row is, per table. */
const EXPIRED = {
  backend_counters: 'expires_at < now()',
  backend_values: 'expires_at < now()',
  // Empty, or holding only lapsed claims: a later take makes the row again (migration 20261204010000).
  backend_slot_claims: `NOT EXISTS (SELECT 1 FROM jsonb_each(claims) AS e(k, v) WHERE (e.v)::double precision >= extract(epoch FROM now()) * 1000 - ${SLOT_ROW_IDLE_MS})`
} as const;

export type SweptTable = keyof typeof EXPIRED;

/** One sweep's statement: up to 5,000 expired rows, skipping those another transaction holds. */
export function sweepStatement(table: SweptTable): string {
  return `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${EXPIRED[table]} LIMIT 5000 FOR UPDATE SKIP LOCKED)`;
}

/**
 * Deletes a table's expired rows at most once a minute per process and table, in the background
 * (what Redis's key expiry does): readers ignore expired rows anyway, this only bounds the table.
 * Rows another transaction holds are skipped, and the condition is checked again on the locked row,
 * so a row written meanwhile stays.
 */
export function sweepExpired(db: Db, table: SweptTable): void {
  let byTable = lastSweep.get(db);
  if (!byTable) lastSweep.set(db, (byTable = new Map()));
  const now = Date.now();
  if (now - (byTable.get(table) ?? 0) < SWEEP_EVERY_MS) return;
  byTable.set(table, now);
  void db.raw(sweepStatement(table)).catch(() => undefined);
}
