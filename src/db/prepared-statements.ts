import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Knex } from 'knex';

/**
 * Named prepared statements: PostgreSQL parses and plans such a statement once per connection
 * instead of on every execution. On the checkout path parsing and planning were about 40% of
 * PostgreSQL's CPU per checkout (perf, 50 shoppers), for statements that are a handful of fixed
 * shapes run thousands of times.
 *
 * A query opts in with `.options(PREPARED)` (query builder or raw): the knex client below names it
 * by a hash of its SQL text, so the same text always gets the same name and a new text a new one.
 * Only shapes whose good plan does not depend on the values belong here (key lookups, locks,
 * writes): after five executions PostgreSQL may keep one generic plan. Prepared statements list
 * their columns instead of `*`, so a migration that adds a column never meets a cached plan whose
 * result type it changed ("cached plan must not change result type").
 */
export const PREPARED = { prepare: true } as const;

const statementNames = new Map<string, string>();

/**
 * Each connection keeps every statement it prepared (some tens of KB of backend memory each) until
 * it closes, so the shapes are bounded; past the bound a new shape runs unprepared.
 */
const MAX_PREPARED_SHAPES = 400;

export function preparedStatementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_PREPARED_SHAPES) {
    name = `p_${createHash('sha1').update(text).digest('base64url').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

interface QueryObject {
  sql: string;
  options?: Record<string, unknown>;
}

type PgClientClass = new (config: Knex.Config) => { _query(connection: unknown, obj: QueryObject): Promise<unknown> };

// knex's own PostgreSQL client, which knex's types do not export.
const KnexPgClient = createRequire(import.meta.url)('knex/lib/dialects/postgres/index.js') as PgClientClass;

/** knex's pg client, turning the `prepare` option into pg's statement `name`. Transactions inherit it. */
export class PreparingPgClient extends KnexPgClient {
  override _query(connection: unknown, obj: QueryObject): Promise<unknown> {
    if (obj.options?.prepare) {
      const { prepare: _prepare, ...options } = obj.options;
      const name = preparedStatementName(obj.sql);
      obj.options = name ? { ...options, name } : options;
    }
    return super._query(connection, obj);
  }
}
