import t from 'tap';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { HELD_CONNECTION, readTogether, transaction } from '../../../src/db/transaction.js';
import { loadOrder } from '../../../src/services/orders/index.js';
import { buildApp, type TestApp } from '../../helpers/app.js';

const backendPid = async (sql: { raw: (text: string) => PromiseLike<{ rows: Array<{ pid: number }> }> }) =>
  (await sql.raw('select pg_backend_pid() as pid')).rows[0]!.pid;

/**
 * One app for the file (issue #32: each app costs a cloned database and a server). Each test writes
 * to a probe table of its own, so none sees another's rows; the test that kills a connection builds
 * its own app.
 */
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('transaction(): one connection, committed together, invisible to others until then', async (t) => {
  const db = app.ctx.db;
  await db.raw('create table tx_probe_commit (id int primary key, note text)');
  let outsideSawIt = true;
  let ended = false;
  const result = await transaction(db, async (sql) => {
    void sql.committed.then(() => (ended = true));
    const pid = await backendPid(sql);
    await sql('txProbeCommit').insert({ id: 1, note: 'builder' });
    await sql.raw('insert into tx_probe_commit (id, note) values (?, ?)', [2, 'raw']);
    const viaBuilder = (await sql('txProbeCommit').count('* as n').first()) as { n: number };
    t.equal(viaBuilder.n, 2, 'the builder sees the raw insert: same connection, same transaction');
    t.equal(await backendPid(sql), pid, 'every statement runs on the one connection');
    outsideSawIt = ((await db('txProbeCommit').count('* as n').first()) as { n: number }).n > 0;
    t.notOk(ended, 'not committed while the work runs');
    return 'done';
  });
  t.equal(result, 'done', "the work's result is returned");
  t.notOk(outsideSawIt, 'another connection does not see the rows before the commit');
  t.same(await db('txProbeCommit').orderBy('id').pluck('note'), ['builder', 'raw'], 'both writes committed');
  await Promise.resolve();
  t.ok(ended, '`committed` resolves once committed');
});

t.test('transaction(): a throw rolls every write back, rethrows, and leaves the pool usable', async (t) => {
  const db = app.ctx.db;
  await db.raw('create table tx_probe_rollback (id int primary key)');
  let committed: Promise<void> | undefined;
  await t.rejects(
    transaction(db, async (sql) => {
      committed = sql.committed;
      await sql('txProbeRollback').insert({ id: 1 });
      await sql('txProbeRollback').insert({ id: 1 }); // duplicate key
    }),
    { code: '23505' },
    "the statement's error reaches the caller"
  );
  await t.rejects(committed!, { code: '23505' }, '`committed` rejects with it');
  t.same(await db('txProbeRollback').pluck('id'), [], 'the first insert was rolled back with it');

  await t.rejects(
    transaction(db, async (sql) => {
      await sql('txProbeRollback').insert({ id: 2 });
      throw new Error('business rule');
    }),
    /business rule/
  );
  t.same(await db('txProbeRollback').pluck('id'), [], "a service's own throw rolls back too");
  // As many transactions as the pool has connections, and more: none was left inside a transaction.
  for (let i = 0; i < 30; i += 1) await transaction(db, (sql) => sql('txProbeRollback').insert({ id: 100 + i }));
  t.equal(((await db('txProbeRollback').count('* as n').first()) as { n: number }).n, 30, 'later transactions commit normally');
});

t.test('transaction(): a connection that dies mid-transaction never goes back into the pool', async (t) => {
  const app = await buildApp(t);
  const db = app.ctx.db;
  let deadPid = 0;
  await t.rejects(
    transaction(db, async (sql) => {
      deadPid = await backendPid(sql);
      await db.raw('select pg_terminate_backend(?)', [deadPid]);
      await sql.raw('select 1');
    }),
    'the statement on the killed connection fails'
  );
  const pids = new Set<number>();
  for (let i = 0; i < 20; i += 1) pids.add(await transaction(db, (sql) => backendPid(sql)));
  t.notOk(pids.has(deadPid), 'no later transaction is handed the dead connection');
});

t.test('transaction(): a savepoint undoes only its own writes; the transaction goes on and commits', async (t) => {
  const db = app.ctx.db;
  await db.raw('create table tx_probe_savepoint (id int primary key)');
  const outcome = await transaction(db, async (sql) => {
    await sql('txProbeSavepoint').insert({ id: 1 });
    const duplicate = await sql
      .savepoint(async (inner) => {
        await inner('txProbeSavepoint').insert({ id: 2 });
        await inner('txProbeSavepoint').insert({ id: 1 });
        return 'inserted';
      })
      .catch((error: { code?: string }) => error.code);
    const kept = await sql.savepoint(async (inner) => {
      await inner('txProbeSavepoint').insert({ id: 3 });
      return 'kept';
    });
    return { duplicate, kept };
  });
  t.same(outcome, { duplicate: '23505', kept: 'kept' }, 'the failing savepoint rethrew its error; the next one ran');
  t.same(await db('txProbeSavepoint').orderBy('id').pluck('id'), [1, 3], 'the rolled-back savepoint took only its own row (2) with it');
});

t.test('transaction(): not pipelined unless asked, so COPY-style and multi-statement work is safe', async (t) => {
  const db = app.ctx.db;
  const modes = await transaction(db, async (sql) => {
    const connection = (sql as unknown as Record<symbol, { connection: { pipeline?: boolean } }>)[HELD_CONNECTION]!.connection;
    await sql.raw('select 1; select 2');
    return connection.pipeline;
  });
  t.notOk(modes, 'pipeline mode off in a plain transaction; a multi-statement string runs');
  const pipelined = await transaction(
    db,
    async (sql) => (sql as unknown as Record<symbol, { connection: { pipeline?: boolean } }>)[HELD_CONNECTION]!.connection.pipeline,
    { pipelined: true }
  );
  t.equal(pipelined, true, 'on when asked (the checkout path)');
});

t.test('transaction(): a plain transaction never queues a statement on a busy connection (deprecated in pg, gone in pg 9)', async (t) => {
  const db = app.ctx.db;
  // pg warns once per process, so the condition it warns on is watched directly: a query handed to
  // a connection, not in pipeline mode, while another is still in its queue or on the wire.
  const queuedBehind: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client & { _queryQueue: unknown[]; _activeQuery?: unknown; pipeline?: boolean }, ...args: unknown[]) {
    if (!this.pipeline && (this._queryQueue.length > 0 || this._activeQuery)) {
      const config = args[0] as string | { text?: string };
      queuedBehind.push(typeof config === 'string' ? config : String(config?.text));
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  t.teardown(() => {
    pg.Client.prototype.query = query;
  });
  await transaction(db, async (sql) => {
    await sql.raw('select 1');
    await sql('stores').first('id');
  });
  await transaction(db, async (sql) => sql.raw('select 1; select 2'));
  await t.rejects(transaction(db, async (sql) => sql.raw('select 1/0')), /division by zero/);
  t.same(queuedBehind, [], 'BEGIN is answered before the work sends its first statement');
  // Reads made together (an order with its lines, fulfilments and refunds) go one after another
  // on a transaction's connection, and all at once on the pool.
  const [store] = await db('stores').insert({ name: 'Reads', slug: `reads-${randomUUID().slice(0, 8)}` }).returning('id');
  await t.rejects(transaction(db, (sql) => loadOrder(app.ctx, sql, store.id, randomUUID())), /not found/i);
  t.same(queuedBehind, [], 'an order read in a transaction queues nothing either');
  // A read beside them that fails ends the transaction: the reads still to go are not sent on a
  // connection that is back in the pool.
  const sent: string[] = [];
  await t.rejects(
    transaction(db, (sql) =>
      Promise.all([
        readTogether(sql, [() => sql.raw('select pg_sleep(0.05)'), () => sql.raw("select 'after the end' as late").then((r) => sent.push('late') && r)]),
        Promise.reject(new Error('beside the reads'))
      ])
    ),
    /beside the reads/
  );
  await new Promise((resolve) => setTimeout(resolve, 150));
  t.same(sent, [], 'no read sent after the transaction ended');
  const pipelined = await transaction(db, async (sql) => (await sql.raw('select 3 as n')).rows[0].n, { pipelined: true });
  t.equal(pipelined, 3, 'a pipelined transaction still sends BEGIN with its first statement');
});
