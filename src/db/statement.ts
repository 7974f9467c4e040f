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

interface PgResult {
  rows: unknown[][];
  rowCount: number | null;
  fields: Array<{ name: string }>;
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[]; rowMode: 'array' }): Promise<PgResult>;
  query(text: string): Promise<unknown>;
  /** pg's pipeline mode, on inside transaction(). */
  pipeline?: boolean;
}

interface PooledClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
  emit(event: 'query', query: { sql: string; bindings: unknown[] }): boolean;
}

/** What `transaction()` puts on its handle: the connection its statements must run on. */
export interface HeldConnection {
  connection: PgConnection;
  /** Committed or rolled back: nothing more may run on the handle. */
  finished: boolean;
}

export const HELD_CONNECTION = Symbol('held connection');

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
 */
export async function runStatementsAndCommit(sql: Sql, calls: StatementCall[]): Promise<StatementResult[]> {
  const held = heldBy(sql);
  if (!held || held.finished) throw new Error('runStatementsAndCommit needs the handle of a transaction() still open');
  const results = await send(held.connection, sql.client as unknown as PooledClient, calls, true);
  held.finished = true;
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
