import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import type pg from 'pg';
import { camelCase } from './column-names.js';
import { HELD_CONNECTION, type HeldConnection, type PgConnection, type PgResult, type Sql } from './transaction.js';

/**
 * Named prepared statements, the one module for them: PostgreSQL parses and plans such a statement
 * once per connection instead of on every execution. On the checkout path parsing and planning
 * were about 40% of PostgreSQL's CPU per checkout (perf, 50 shoppers), for statements that are a
 * handful of fixed shapes run thousands of times. Three ways in, one naming:
 *
 * - `.options(PREPARED)` on a knex query (builder or raw): ordinary hot reads and writes;
 * - `defineStatement` + `runStatement(s)`: the checkout path, straight on the pg connection;
 * - `queryPrepared`: the storefront's hand-written SQL ($n placeholders, rows as PostgreSQL names
 *   the columns).
 *
 * A statement is named by a hash of its SQL text, so the same text always gets the same name and a
 * new text a new one.
 * Only shapes whose good plan does not depend on the values belong here (key lookups, locks,
 * writes): after five executions PostgreSQL may keep one generic plan. Prepared statements list
 * their columns instead of `*`, so a migration that adds a column never meets a cached plan whose
 * result type it changed ("cached plan must not change result type").
 */
export const PREPARED = { prepare: true } as const;

const statementNames = new Map<string, string>();

/**
 * Each connection keeps every statement it prepared (some tens of KB of backend memory each, about
 * 75 KB for a storefront page) until it closes, so the shapes are bounded; past the bound a new
 * shape runs unprepared. About 50 are the storefront's (sort x collection x inStock x cursor,
 * product, collections); the bound is the sum of the two the modules this merged had (400 + 200).
 */
const MAX_PREPARED_SHAPES = 600;

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

interface PooledClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
  emit(event: 'query', query: { sql: string; bindings: unknown[] }): boolean;
}

export interface StatementResult<Row = Record<string, unknown>> {
  rows: Row[];
  rowCount: number;
}

/** A statement with its values, to run later, with others (runStatements). */
export interface StatementCall {
  statement: Statement;
  values: Record<string, unknown>;
  /** Called once it has run, with the handle it ran on (the outbox wakes its relay after the commit). */
  ran?: (sql: Sql) => void;
}

export async function runStatement<Row = Record<string, unknown>>(sql: Sql, statement: Statement, values: Record<string, unknown>): Promise<StatementResult<Row>> {
  const [result] = await runStatements(sql, [{ statement, values }]);
  return result as StatementResult<Row>;
}

/**
 * Runs the calls in order on one connection and returns their results in order. Inside a
 * `transaction()` they go out together (pg pipeline mode) and are answered in one round trip; the
 * first failure is thrown once every call has been answered.
 */
export function runStatements(sql: Sql, calls: StatementCall[]): Promise<StatementResult[]> {
  return onConnection(sql, (connection, client) => send(connection, client, calls, false)).then((results) => {
    for (const call of calls) call.ran?.(sql);
    return results;
  });
}

/**
 * The last statements of a `transaction()` and its COMMIT, in one round trip: the transaction
 * ends here (nothing more may run on the handle, and `transaction()` does not commit again).
 * A failing call aborts the transaction, so the COMMIT behind it rolls back; the failure is thrown.
 * In a transaction opened without `pipelined`, the connection is in pipeline mode for these
 * statements and the COMMIT only (nothing else is outstanding on it then: every statement before
 * was awaited).
 */
export async function runStatementsAndCommit(sql: Sql, calls: StatementCall[]): Promise<StatementResult[]> {
  const held = heldBy(sql);
  if (!held || held.finished) throw new Error('runStatementsAndCommit needs the handle of a transaction() still open');
  const connection = held.connection;
  const pipelineNow = connection.pipeline === false;
  if (pipelineNow) connection.pipeline = true;
  let results: StatementResult[];
  try {
    results = await send(connection, sql.client as unknown as PooledClient, calls, true);
  } finally {
    if (pipelineNow) connection.pipeline = false;
    held.finished = true;
  }
  for (const call of calls) call.ran?.(sql);
  return results;
}

const heldBy = (sql: Sql) => (sql as unknown as { [HELD_CONNECTION]?: HeldConnection })[HELD_CONNECTION];

async function onConnection<T>(sql: Sql, work: (connection: PgConnection, client: PooledClient) => Promise<T>): Promise<T> {
  const client = sql.client as unknown as PooledClient;
  const held = heldBy(sql);
  if (held?.finished) throw new Error('the transaction has ended: nothing more may run on its handle');
  if (held) return work(held.connection, client);
  const connection = await client.acquireConnection();
  try {
    return await work(connection, client);
  } finally {
    await client.releaseConnection(connection);
  }
}

async function send(connection: PgConnection, client: PooledClient, calls: StatementCall[], commit: boolean): Promise<StatementResult[]> {
  const allValues = calls.map(orderedValues); // a missing binding is refused before anything is sent
  const queries: unknown[] = [];
  for (const [i, call] of calls.entries()) {
    const values = allValues[i]!;
    client.emit('query', { sql: call.statement.text, bindings: values });
    const query = connection.query({ name: call.statement.name, text: call.statement.text, values, rowMode: 'array' });
    // Without pipeline mode pg would queue a second query behind the first: wait instead.
    queries.push(connection.pipeline ? query : await query);
  }
  if (commit) {
    client.emit('query', { sql: 'COMMIT', bindings: [] });
    queries.push(connection.query('COMMIT'));
  }
  const settled = await Promise.allSettled(queries);
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return calls.map((call, i) => rowsOf(call.statement, (settled[i] as PromiseFulfilledResult<PgResult>).value));
}

function orderedValues(call: StatementCall): unknown[] {
  return call.statement.bindings.map((binding) => {
    const value = call.values[binding];
    if (value === undefined) throw new Error(`statement binding :${binding} is undefined`);
    return value;
  });
}

function rowsOf(statement: Statement, result: PgResult): StatementResult {
  const keys = (statement.keys ??= result.fields.map((field) => camelCase(field.name)));
  const rows = result.rows.map((columns) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) row[keys[i]!] = columns[i];
    return row;
  });
  return { rows, rowCount: result.rowCount ?? 0 };
}

/**
 * Runs SQL ($1, $2 … placeholders) on a pooled connection, as a named prepared statement when
 * `prepare` is set: PostgreSQL then parses and plans it once per connection instead of per request.
 * The storefront's reads are a few shapes run thousands of times a second, and planning one cost
 * about twice as much as executing it. Shapes whose best plan depends on the values (full-text
 * search, tag filters, price ranges) are not prepared, so a generic plan never replaces a good
 * custom one; the others must make their generic plan the good one (see PAGE_ROW_BOUND).
 * Rows come back exactly as PostgreSQL names the columns (no key mapping).
 */
export async function queryPrepared<Row>(db: Knex, text: string, values: unknown[], prepare: boolean): Promise<Row[]> {
  const name = prepare ? preparedStatementName(text) : undefined;
  const connection = (await db.client.acquireConnection()) as pg.Client;
  try {
    const result = await connection.query<Row & pg.QueryResultRow>(name ? { name, text, values } : { text, values });
    return result.rows;
  } finally {
    await db.client.releaseConnection(connection);
  }
}
