import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

/**
 * Appends every distinct SQL text the pool sends (builder, raw, prepared and pipelined statements all
 * pass knex's `query` event) to `<dir>/<pid>.sql`, one JSON string a line. Off unless
 * STATEMENT_LOG_DIR is set: test/citus-rules.test.ts runs a set of test files with it and checks
 * that every statement on a store-scoped table names store_id. Not seen: statements run inside SQL
 * functions and triggers, and COPY on a raw connection.
 */
export function logStatements(db: Knex, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${process.pid}.sql`);
  const seen = new Set<string>();
  db.on('query', (query: { sql?: string }) => {
    if (!query.sql || seen.has(query.sql)) return;
    seen.add(query.sql);
    appendFileSync(file, `${JSON.stringify(query.sql)}\n`);
  });
}
