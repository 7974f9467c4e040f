import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

/**
 * Test machinery, loaded into every process of a test run by `NODE_OPTIONS=--import <this file>`
 * (test/setup/run-tap.ts sets both it and STATEMENT_LOG_DIR, and child processes inherit them).
 * Appends every distinct SQL text the app sends (builder, raw, prepared and pipelined statements all
 * pass knex's `query` event) to `<dir>/<pid>.sql`, one JSON string a line; run-tap then checks that
 * every statement on a store-scoped table names store_id.
 *
 * The app's pool is announced by createContext on the `shopwright:db-pool` diagnostics channel (no
 * subscriber outside a test run, so production does nothing): only that pool is logged, as before.
 * Statements a test file builds itself on the app's pool (fixtures, assertions) are left out: a
 * builder or raw query remembers, when created, whether its caller was under test/ rather than src/.
 * Not seen: statements run inside SQL functions and triggers, and COPY on a raw connection.
 */
const dir = process.env.STATEMENT_LOG_DIR;
if (dir) subscribe('shopwright:db-pool', (message) => logStatements((message as { db: Knex }).db, dir));

function logStatements(db: Knex, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${process.pid}.sql`);
  const seen = new Set<string>();
  const fromTests = markTestBuilders(db);
  db.on('query', (query: { sql?: string }) => {
    if (!query.sql) return;
    const pending = fromTests.get(query.sql);
    if (pending) {
      if (pending === 1) fromTests.delete(query.sql);
      else fromTests.set(query.sql, pending - 1);
      return;
    }
    if (seen.has(query.sql)) return;
    seen.add(query.sql);
    appendFileSync(file, `${JSON.stringify(query.sql)}\n`);
  });
}

type Emitter = { on(event: 'query', listener: (query: { sql?: string }) => void): unknown };
type ClientPrototype = { queryBuilder(...args: unknown[]): Emitter; raw(...args: unknown[]): Emitter; __statementLogWrapped?: Map<string, number> };

/**
 * Wraps the client's builder factories (on the prototype, which transaction clients share): a builder
 * created from a test file announces its SQL just before knex's `query` event, which then skips it.
 */
function markTestBuilders(db: Knex): Map<string, number> {
  const proto = Object.getPrototypeOf(db.client) as ClientPrototype;
  if (proto.__statementLogWrapped) return proto.__statementLogWrapped;
  const pending = new Map<string, number>();
  proto.__statementLogWrapped = pending;
  for (const method of ['queryBuilder', 'raw'] as const) {
    const original = proto[method];
    proto[method] = function (this: { positionBindings(sql: string): string }, ...args: unknown[]) {
      const builder = original.apply(this, args);
      if (createdByTest(new Error().stack ?? '')) {
        // The builder's event has `?` placeholders; the client's, sent after it, PostgreSQL's `$n`.
        builder.on('query', (query) => {
          const sql = query.sql && this.positionBindings(query.sql);
          if (sql) pending.set(sql, (pending.get(sql) ?? 0) + 1);
        });
      }
      return builder;
    };
  }
  return pending;
}

/** The first frame of ours outside src/db/ and this file is in test/ (compiled or not). */
function createdByTest(stack: string): boolean {
  for (const line of stack.split('\n').slice(1)) {
    if (line.includes('node_modules') || line.includes('node:')) continue;
    if (/[/\\]src[/\\]db[/\\]/.test(line) || /[/\\]test[/\\]setup[/\\]statement-log\.[jt]s/.test(line)) continue;
    if (/[/\\]test[/\\]/.test(line)) return true;
    if (/[/\\]src[/\\]/.test(line)) return false;
  }
  return false;
}
