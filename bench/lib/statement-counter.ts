import pg from 'pg';

type Callback = (...args: unknown[]) => void;
type QueryFn = (this: PgClient, config: unknown, values?: unknown, callback?: unknown) => unknown;
interface PgClient {
  query: QueryFn;
  outstandingQueries?: number;
}

export interface StatementCounter {
  /** Statements sent since the last reset (BEGIN and COMMIT included), and the round trips they took. */
  readonly sql: number;
  readonly trips: number;
  counting: boolean;
  reset(): void;
  restore(): void;
}

/**
 * Counts the SQL statements this process sends through pg, and the round trips they take: a
 * statement sent while another is still unanswered on its connection (pg pipeline mode) costs no
 * round trip of its own. The outbox relay's own reads and deletes (it runs beside the measured
 * work) are left out; an enqueue (an insert into outbox) counts. BENCH_TRACE_SQL=1 prints each
 * statement. In-process counts do not depend on how busy the machine is, unlike throughput.
 */
export function countStatements(): StatementCounter {
  const relayStatement = /\bfrom "?outbox"?|synchronous_commit/;
  const clientPrototype = pg.Client.prototype as unknown as PgClient;
  const query = clientPrototype.query;
  const counter = { sql: 0, trips: 0, counting: false, reset() { counter.sql = 0; counter.trips = 0; }, restore() { clientPrototype.query = query; } };
  clientPrototype.query = function (this: PgClient, config: unknown, values?: unknown, callback?: unknown) {
    const text = typeof config === 'string' ? config : (config as { text?: string } | null)?.text;
    const outstanding = this.outstandingQueries ?? 0;
    if (counter.counting && text && !relayStatement.test(text)) {
      counter.sql += 1;
      if (outstanding === 0) counter.trips += 1;
      if (process.env.BENCH_TRACE_SQL) console.log(`  sql${outstanding ? ' (pipelined)' : ''}: ${text.replace(/\s+/g, ' ').slice(0, 160)}`);
    }
    this.outstandingQueries = outstanding + 1;
    const answered = () => (this.outstandingQueries = (this.outstandingQueries ?? 1) - 1);
    if (typeof values === 'function' || typeof callback === 'function') {
      const wrap = (done: Callback): Callback => (...args) => (answered(), done(...args));
      return typeof values === 'function' ? query.call(this, config, wrap(values as Callback)) : query.call(this, config, values, wrap(callback as Callback));
    }
    const result = query.call(this, config, values);
    if (result instanceof Promise) result.then(answered, answered);
    else answered(); // a submittable (COPY, cursors): not on the measured paths
    return result;
  };
  return counter;
}
