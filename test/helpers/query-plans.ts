import type { TestApp } from './app.js';

/**
 * The plan PostgreSQL would take for `sql` if it could not scan the table: whether an index serves
 * an expression (with a few rows a scan is cheaper, so the plain plan says nothing).
 */
export async function planWithoutSeqScan(app: TestApp, sql: string, bindings: unknown[] = []): Promise<string> {
  return app.ctx.db.transaction(async (trx) => {
    await trx.raw('set local enable_seqscan = off');
    const plan = await trx.raw(`explain ${sql}`, bindings as never);
    return (plan.rows as Array<Record<string, string>>).map((row) => row['QUERY PLAN']).join('\n');
  });
}
