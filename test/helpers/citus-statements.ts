import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { STORE_SCOPED_TABLES, TABLE_DISTRIBUTION } from '../../src/platform/table-distribution.js';

/**
 * The query half of the Citus rules (docs/scaling.md): every statement the app sent that reads or
 * writes a store-scoped table must name `store_id` (a filter, a join condition or an inserted value),
 * so that a Citus coordinator can route it to one store's shard. Rough, at text level: the table
 * names after FROM, JOIN, UPDATE, INTO, USING and in comma lists of FROM; one `store_id` outside the
 * output lists (a select list, RETURNING) satisfies every table in the statement (a subquery on a
 * second table without its own filter is not caught). The statements come from STATEMENT_LOG_DIR
 * (test/setup/statement-log.ts).
 */

/**
 * Statements that legitimately span stores, or that run before any store is known, each with why.
 * The statement marks itself with a leading SQL comment, `/* cross-store: <what> *\/` (knex:
 * `.comment('cross-store: <what>')`), and the marker must be listed here: a new cross-store statement
 * is a reviewed change to this list, not a silent pass.
 */
export const CROSS_STORE_STATEMENTS: ReadonlyArray<{ marker: string; why: string }> = [
  { marker: 'expired carts sweep', why: 'checkout-maintenance deletes expired carts of every store (a scheduled platform job; on Citus a multi-shard delete)' },
  { marker: 'public media url', why: 'a public media URL names the media id only; on Citus a fan-out read until the URL carries the store' },
  { marker: 'unsubscribe link', why: 'an unsubscribe token names the customer only (links already sent must keep working); on Citus a fan-out read' },
  { marker: 'order tracking token', why: 'the public tracking page has only the token; on Citus a fan-out read (or a reference table token → store)' },
  { marker: 'campaign click link', why: 'a signed click token names the campaign only (links already sent must keep working); on Citus a fan-out read' },
  { marker: 'stripe payment intent', why: 'a Stripe event names the payment intent; a session started before its intent id was stored is found by metadata instead' },
  { marker: 'expired checkout sessions sweep', why: 'checkout-maintenance releases expired sessions of every store (scheduled; multi-shard on Citus)' },
  { marker: 'stuck webhook deliveries sweep', why: 'webhook-sweep requeues lost deliveries of every store (scheduled; multi-shard on Citus); it also reads the coordinator-local outbox' },
  { marker: 'stuck campaigns sweep', why: 'campaign-sweep looks for campaigns of every store left sending by lost jobs (scheduled; multi-shard on Citus); later statements name the store' },
  { marker: 'expired idempotency keys sweep', why: 'a scheduled job forgets the idempotency keys of every store past their TTL (multi-shard on Citus)' },
  { marker: 'external system account', why: 'an inbound external-system webhook names its account, which may link several stores; each link found names its store' },
  { marker: 'nightly sync scheduler', why: 'the nightly job lists the connected stores to queue one backfill per store (multi-shard on Citus)' },
  { marker: 'campaign job by id', why: 'campaign-start and campaign-batch jobs carry the campaign id only; later statements name the store (fix: storeId in the payload)' },
  { marker: 'audit seal sweep', why: 'the scheduled audit-seal job lists the stores with pending audit entries (left by a process that stopped before sealing them); each seal names its store' },
  { marker: 'audit retention purge', why: 'the scheduled audit-retention job deletes expired audit entries of every store, each store by its own retention (multi-shard on Citus)' },
  { marker: 'webhook delivery job by id', why: 'webhook-delivery jobs carry the delivery id only; later statements name the store (fix: storeId in the payload)' }
];

const crossStoreMarker = (text: string) => /^\/\* cross-store: ([^*]+?) \*\//.exec(text)?.[1];

export function normalise(sql: string): string {
  return sql.replace(/"/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The tables a statement names (any classification), at text level. */
export function tablesNamed(sql: string): string[] {
  const text = normalise(sql)
    // String literals can hold anything.
    .replace(/'(?:[^']|'')*'/g, "''");
  const found = new Set<string>();
  for (const m of text.matchAll(/\b(?:from|join|update|into|using|table)\s+(?:only\s+)?([a-z_][a-z0-9_]*)((?:\s+(?:as\s+)?[a-z_][a-z0-9_]*)?(?:\s*,\s*[a-z_][a-z0-9_]*(?:\s+(?:as\s+)?[a-z_][a-z0-9_]*)?)*)/g)) {
    found.add(m[1]!);
    // `from a x, b y`: the comma list.
    for (const extra of (m[2] ?? '').split(',').slice(1)) {
      const name = extra.trim().split(/\s+/)[0];
      if (name) found.add(name);
    }
  }
  return [...found].filter((name) => TABLE_DISTRIBUTION[name]);
}

/**
 * The statement without what it outputs: RETURNING lists, and select lists that hold no subquery
 * (`select a, store_id from t where id = $1` → `select from t where id = $1`). Reading a row's
 * store_id does not route the statement that reads it.
 */
export function withoutOutputs(text: string): string {
  return text.replace(/\breturning\b[^;)]*/g, ' ').replace(/\bselect\b(?:(?!\bselect\b|\bfrom\b).)*\bfrom\b/g, 'select from');
}

export interface StatementViolation {
  sql: string;
  tables: string[];
}

/** Each distinct statement on a store-scoped table that names no store_id and is not allowed. */
export function statementViolations(statements: Iterable<string>): StatementViolation[] {
  const found = new Map<string, StatementViolation>();
  for (const sql of statements) {
    const text = normalise(sql);
    if (found.has(text)) continue;
    const tables = tablesNamed(sql).filter((t) => STORE_SCOPED_TABLES.includes(t));
    if (!tables.length || /\bstore_id\b/.test(withoutOutputs(text))) continue;
    const marker = crossStoreMarker(text);
    if (marker && CROSS_STORE_STATEMENTS.some((allowed) => allowed.marker === marker)) continue;
    found.set(text, { sql: text, tables });
  }
  return [...found.values()];
}

/** The statements of every process that logged into dir. */
export function readStatementLog(dir: string): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .flatMap((file) =>
      readFileSync(path.join(dir, file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string)
    );
}
