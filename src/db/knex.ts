import knexFactory, { type Knex } from 'knex';
import { createRequire } from 'node:module';
import pg from 'pg';
import { camelCase } from './column-names.js';
import { PreparingPgClient } from './prepared-statements.js';

// int8 (counts, sums) as JS numbers: every amount we keep fits well inside 2^53.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
// numeric (percentages) as JS numbers.
pg.types.setTypeParser(1700, (value) => Number.parseFloat(value));

export type Db = Knex;

interface SnakeCaseMappers {
  wrapIdentifier(identifier: string, origWrap: (identifier: string) => string): string;
  postProcessResponse(result: unknown): unknown;
}
// Only objection's identifier mappers, by their own file: the package's index loads the whole ORM
// (284 files, ~200 ms at every process start, every test file's included) for these two functions.
// objection's typings describe only its index, hence the shape above.
const { knexSnakeCaseMappers } = createRequire(import.meta.url)('objection/lib/utils/identifierMapping.js') as {
  knexSnakeCaseMappers(): SnakeCaseMappers;
};

export interface SessionTimeouts {
  /** PostgreSQL `statement_timeout` (ms, 0 = none): a runaway query is cancelled, not left to hold a connection. */
  statementTimeoutMs?: number;
  /** PostgreSQL `idle_in_transaction_session_timeout` (ms, 0 = none): a transaction left open is ended. */
  idleInTransactionTimeoutMs?: number;
}

interface RawResult {
  command: string;
  rows: Record<string, unknown>[];
}

const isRawResult = (result: unknown): result is RawResult =>
  typeof result === 'object' && result !== null && Array.isArray((result as RawResult).rows) && typeof (result as RawResult).command === 'string';

function camelCaseKeys(row: Record<string, unknown>): Record<string, unknown> {
  const mapped: Record<string, unknown> = {};
  for (const key in row) mapped[camelCase(key)] = row[key];
  return mapped;
}

/**
 * One knex instance per process and database. Identifiers are camelCase in code and snake_case in
 * SQL (objection's mappers), so services write `where({ storeId })` and read `row.createdAt`, from
 * the query builder and from `db.raw` alike.
 * Every pooled connection starts with the session timeouts (pg sends them in the startup packet);
 * work that needs longer (the CSV import) raises them with `SET LOCAL` in its own transactions.
 */
export function createDb(
  databaseUrl: string,
  pool: { min?: number; max?: number; idleMs?: number } = {},
  timeouts: SessionTimeouts = {},
  log?: Knex.Config['log']
): Knex {
  const mappers = knexSnakeCaseMappers();
  return knexFactory({
    ...(log ? { log } : {}),
    // knex's pg client, plus named prepared statements for queries marked `.options(PREPARED)`.
    client: PreparingPgClient as unknown as Knex.Config['client'],
    connection: {
      connectionString: databaseUrl,
      application_name: 'shopwright',
      ...(timeouts.statementTimeoutMs ? { statement_timeout: timeouts.statementTimeoutMs } : {}),
      ...(timeouts.idleInTransactionTimeoutMs ? { idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs } : {})
    },
    pool: { min: pool.min ?? 0, max: pool.max ?? 10, ...(pool.idleMs ? { idleTimeoutMillis: pool.idleMs } : {}) },
    acquireConnectionTimeout: 10_000,
    wrapIdentifier: mappers.wrapIdentifier,
    // Query-builder rows are mapped by objection's mapper; a raw query's result is pg's own object,
    // whose rows that mapper leaves alone: map them here, so every row reaches services in camelCase.
    postProcessResponse: (result) =>
      isRawResult(result) ? { ...result, rows: result.rows.map(camelCaseKeys) } : mappers.postProcessResponse(result)
  });
}
