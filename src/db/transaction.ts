import type { Knex } from 'knex';

/**
 * What a service's statements need from a database handle: `sql(table)` and `sql.queryBuilder()`
 * for query builders, `sql.raw` and `sql.fn`. The knex instance, a knex transaction and the handle
 * `transaction()` below gives are each one, so a service written against `Sql` runs in or out of
 * a transaction.
 */
export interface Sql {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  <TRecord extends {} = any, TResult = unknown[]>(table: string): Knex.QueryBuilder<TRecord, TResult>;
  queryBuilder: Knex['queryBuilder'];
  raw: Knex.RawBuilder;
  fn: Knex.FunctionHelper;
  client: Knex['client'];
}

/**
 * The handle inside `transaction()`: `committed` settles once the transaction has ended (rejects
 * when rolled back); `savepoint(work)` runs `work` so that its failure undoes only its own
 * statements (the caller catches and goes on).
 */
export interface Transaction extends Sql {
  committed: Promise<void>;
  savepoint<T>(work: (sql: Transaction) => Promise<T>): Promise<T>;
}

/**
 * Reads that need not wait for each other: all at once on the pool (each on a connection of its
 * own), one after another on a transaction (its one connection answers one query at a time; pg
 * would queue them there, a use of the client it deprecates and pg 9 removes: the wire is the same).
 */
export async function readTogether<T extends unknown[]>(sql: Sql | Knex, reads: [...{ [K in keyof T]: () => PromiseLike<T[K]> }]): Promise<T> {
  if (!(HELD_CONNECTION in sql)) return (await Promise.all(reads.map((read) => read()))) as T;
  const held = (sql as unknown as { [HELD_CONNECTION]: HeldConnection })[HELD_CONNECTION];
  const results: unknown[] = [];
  for (const read of reads) {
    // Work running beside these reads may have failed and ended the transaction: its connection
    // is then back in the pool, another's to use.
    if (held.finished) throw new Error('the transaction ended before its reads did');
    results.push(await read());
  }
  return results as T;
}

export interface TransactionOptions {
  /**
   * pg's pipeline mode for the transaction: BEGIN goes out with the first statement, and
   * `runStatementsAndCommit` sends the last statements with the COMMIT. For the checkout path;
   * COPY, cursors and multi-statement strings refuse it.
   */
  pipelined?: boolean;
}

/** A pooled pg connection, as the statements of prepared-statements.ts use it. */
export interface PgConnection {
  query(config: { name: string; text: string; values: unknown[]; rowMode: 'array' }): Promise<PgResult>;
  query(text: string): Promise<unknown>;
  /** pg's pipeline mode, on inside transaction(). */
  pipeline?: boolean;
}

export interface PgResult {
  rows: unknown[][];
  rowCount: number | null;
  fields: Array<{ name: string }>;
}

/** What `transaction()` puts on its handle: the connection its statements must run on. */
export interface HeldConnection {
  connection: PgConnection;
  /** Committed or rolled back: nothing more may run on the handle. */
  finished: boolean;
}

export const HELD_CONNECTION = Symbol('held connection');

interface PooledClient {
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: PooledConnection): Promise<unknown>;
  emit(event: 'query', query: { sql: string; bindings: unknown[] }): boolean;
}

interface PooledConnection {
  /** knex's pool discards a connection marked so instead of handing it out again. */
  __knex__disposed?: unknown;
  query(text: string): Promise<unknown>;
  /** pg's pipeline mode: queries go out without waiting for the answers before them. */
  pipeline?: boolean;
}

/**
 * The one way to open a transaction (services reach it through `withTransaction`, which adds the
 * domain events). Runs `work` in one transaction on one pooled connection: BEGIN, the work's statements, COMMIT
 * (ROLLBACK when it throws). Each statement goes through knex bound to that connection
 * (`.connection()`), so identifier mapping, prepared statements and query events are as anywhere;
 * `runStatement` (prepared-statements.ts) finds the connection on the handle. BEGIN, COMMIT and ROLLBACK go to the
 * connection directly (knex's raw path costs more CPU than the statement itself), with knex's
 * `query` event.
 *
 * With `pipelined`, the connection is in pg's pipeline mode for the transaction (and only then: COPY and cursors
 * refuse it): BEGIN goes out with the work's first statement instead of one round trip ahead of
 * it, and `runStatementsAndCommit` sends the last statements with the COMMIT. Statements the work
 * awaits one by one run as before. A statement that fails inside the transaction leaves it
 * aborted, so whatever was sent behind it fails too (a COMMIT then rolls back), and the ROLLBACK
 * here ends it.
 *
 * Why not `knex.transaction()`: it builds a whole knex instance, a client and their event
 * emitters for every transaction. On the checkout path (four transactions per checkout, each a
 * few statements) that was about 0.1 to 0.25 ms of CPU per transaction over this (measured
 * in-process with one lock statement each); at 100 checkouts/s on two cores that is real money.
 */
export async function transaction<T>(db: Knex, work: (sql: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  const client = db.client as unknown as PooledClient;
  const connection = await client.acquireConnection();
  let ended!: (error?: unknown) => void;
  const committed = new Promise<void>((resolve, reject) => {
    ended = (error) => (error === undefined ? resolve() : reject(error));
  });
  committed.catch(() => undefined); // a rollback is the caller's error to handle, not an unhandled rejection
  const run = (text: string) => {
    client.emit('query', { sql: text, bindings: [] });
    return connection.query(text);
  };
  const held: HeldConnection = { connection: connection as unknown as HeldConnection['connection'], finished: false };
  let savepoints = 0;
  const savepoint = async <S>(inner: (handle: Transaction) => Promise<S>): Promise<S> => {
    const name = `sp_${++savepoints}`;
    await run(`SAVEPOINT ${name}`);
    try {
      const value = await inner(sql);
      await run(`RELEASE SAVEPOINT ${name}`);
      return value;
    } catch (error) {
      await run(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
  };
  const sql: Transaction = Object.assign(<TRecord extends {}, TResult>(table: string) => db<TRecord, TResult>(table).connection(connection), {
    queryBuilder: () => db.queryBuilder().connection(connection),
    raw: ((text: string, bindings?: Knex.RawBinding[] | Knex.ValueDict) =>
      (bindings === undefined ? db.raw(text) : db.raw(text, bindings as Knex.RawBinding[])).connection(connection)) as Knex.RawBuilder,
    fn: db.fn,
    client: db.client,
    committed,
    savepoint,
    [HELD_CONNECTION]: held
  }) as unknown as Transaction;
  const pipelined = options.pipelined === true && typeof connection.pipeline === 'boolean';
  if (pipelined) connection.pipeline = true;
  try {
    const begun = run('BEGIN');
    begun.catch(() => undefined); // its failure fails the work's first statement, and is rethrown below
    // Outside pipeline mode pg would hold the work's first statement in its queue until BEGIN's
    // answer anyway (the same round trip), a use of the client that pg deprecates and pg 9
    // removes: it printed a DeprecationWarning in every process. Wait for it here instead.
    if (!pipelined) await begun;
    const result = await work(sql);
    await begun;
    if (!held.finished) await run('COMMIT');
    held.finished = true;
    ended();
    return result;
  } catch (error) {
    held.finished = true;
    ended(error ?? new Error('transaction rolled back'));
    try {
      await run('ROLLBACK');
    } catch {
      // The connection is broken (or the server ended it): it must not go back into the pool.
      connection.__knex__disposed = error;
    }
    throw error;
  } finally {
    // Every query sent has been answered by now (the last one awaited was the last one sent).
    if (pipelined) connection.pipeline = false;
    await client.releaseConnection(connection);
  }
}
