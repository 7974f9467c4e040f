import type { Sql } from './transaction.js';
import { camelCase } from './knex.js';
import { preparedStatementName } from './prepared-statements.js';

/**
 * A statement of the checkout path, compiled once: its `:name` bindings become `$n` positions at
 * definition, and each run goes straight to the pooled pg connection as a named prepared
 * statement. Through `sql.raw(...).options(PREPARED)` the same statement cost about 80 µs more
 * CPU per run on this machine (knex rewrites named bindings with regular expressions, builds a
 * runner and its promise chain, and maps the response), which at 13 statements per checkout was
 * about a sixth of the server's CPU. Rows come back with camelCase keys, as from knex.
 *
 * Runs on a knex instance (a pooled connection for the one statement), a knex transaction (its
 * connection) or a `transaction()` handle (its connection), and emits knex's `query` event, so
 * listeners that count statements see these too.
 */
export interface Statement {
  readonly text: string;
  readonly name: string;
  readonly bindings: readonly string[];
  /** The camelCase key of each result column, learned from the first result. */
  keys?: string[];
}

// `:name` not preceded by ':' or a word character: `::jsonb` casts and times like '10:30' stay.
const NAMED_BINDING = /(?<![:\w]):([A-Za-z_]\w*)/g;

export function defineStatement(text: string): Statement {
  const bindings: string[] = [];
  const compiled = text.replace(NAMED_BINDING, (_match, binding: string) => {
    let position = bindings.indexOf(binding);
    if (position < 0) position = bindings.push(binding) - 1;
    return `$${position + 1}`;
  });
  const name = preparedStatementName(compiled);
  if (!name) throw new Error('too many prepared statement shapes to define another');
  return { text: compiled, name, bindings };
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[]; rowMode: 'array' }): Promise<{
    rows: unknown[][];
    rowCount: number | null;
    fields: Array<{ name: string }>;
  }>;
}

interface PooledClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
  emit(event: 'query', query: { sql: string; bindings: unknown[] }): boolean;
}

/** Set by `transaction()` on its handle: the connection its statements must run on. */
export const HELD_CONNECTION = Symbol('held connection');

export async function runStatement<Row = Record<string, unknown>>(
  sql: Sql,
  statement: Statement,
  values: Record<string, unknown>
): Promise<{ rows: Row[]; rowCount: number }> {
  const ordered = statement.bindings.map((binding) => {
    const value = values[binding];
    if (value === undefined) throw new Error(`statement binding :${binding} is undefined`);
    return value;
  });
  const client = sql.client as unknown as PooledClient;
  const held = (sql as unknown as { [HELD_CONNECTION]?: PgConnection })[HELD_CONNECTION];
  const connection = held ?? (await client.acquireConnection());
  try {
    client.emit('query', { sql: statement.text, bindings: ordered });
    const result = await connection.query({ name: statement.name, text: statement.text, values: ordered, rowMode: 'array' });
    const keys = (statement.keys ??= result.fields.map((field) => camelCase(field.name)));
    const rows = result.rows.map((columns) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i++) row[keys[i]!] = columns[i];
      return row as Row;
    });
    return { rows, rowCount: result.rowCount ?? 0 };
  } finally {
    if (!held) await client.releaseConnection(connection);
  }
}
