import t from 'tap';
import { defineStatement, runStatement, runStatementsAndCommit } from '../../../src/db/prepared-statements.js';
import { transaction } from '../../../src/db/transaction.js';
import { buildApp } from '../../helpers/app.js';

t.test('defineStatement: named bindings become positions once, casts and literals stay', async (t) => {
  const statement = defineStatement(`select :id::uuid as id, :note as note, '10:30' as at, :id::text as again, t.a::int from t where x = :note`);
  t.equal(statement.text, `select $1::uuid as id, $2 as note, '10:30' as at, $1::text as again, t.a::int from t where x = $2`);
  t.same(statement.bindings, ['id', 'note']);
  t.not(defineStatement('select :id::uuid as id').name, statement.name, 'another text, another prepared name');
  t.equal(defineStatement(`select :id::uuid as id, :note as note, '10:30' as at, :id::text as again, t.a::int from t where x = :note`).name, statement.name, 'the same text, the same name');
});

t.test('runStatement: on the pool, in knex and lean transactions, rows in camelCase, query events', async (t) => {
  const app = await buildApp(t);
  // The app's outbox relay shares the pool: stopped, so that the pool holds only what this test runs.
  await app.ctx.outbox.stop();
  const db = app.ctx.db;
  await db.raw('create table statement_probe (id int primary key, long_name text, created_at timestamptz not null default now())');
  const insert = defineStatement('insert into statement_probe (id, long_name) values (:id, :longName) returning id, long_name, created_at');
  const seen: string[] = [];
  const onQuery = (query: { sql: string }) => seen.push(query.sql);
  db.on('query', onQuery);
  t.teardown(() => db.off('query', onQuery));

  const inserted = await runStatement<{ id: number; longName: string; createdAt: Date }>(db, insert, { id: 1, longName: 'pool' });
  t.equal(inserted.rowCount, 1);
  t.same({ id: inserted.rows[0]!.id, longName: inserted.rows[0]!.longName }, { id: 1, longName: 'pool' }, 'keys in camelCase, types parsed');
  t.ok(inserted.rows[0]!.createdAt instanceof Date);
  t.ok(seen.includes(insert.text), 'the query event carries the statement');

  const pid = defineStatement('select pg_backend_pid() as pid, txid_current_if_assigned() as txid');
  await transaction(db, async (sql) => {
    await runStatement(sql, insert, { id: 2, longName: 'lean' });
    const inside = (await runStatement<{ pid: number; txid: string | null }>(sql, pid, {})).rows[0]!;
    const viaKnex = (await sql.raw('select pg_backend_pid() as pid, txid_current_if_assigned() as txid')).rows[0] as { pid: number; txid: string | null };
    t.same(inside, viaKnex, 'on the transaction’s own connection, inside its transaction');
    t.not(inside.txid, null, 'the insert before it belongs to the same transaction');
  }, { pipelined: true });
  await db.transaction(async (trx) => {
    await runStatement(trx, insert, { id: 3, longName: 'knex' });
    const inside = (await runStatement<{ pid: number; txid: string | null }>(trx, pid, {})).rows[0]!;
    t.not(inside.txid, null, 'inside a knex transaction too');
  });
  await t.rejects(
    transaction(db, async (sql) => {
      await runStatement(sql, insert, { id: 4, longName: 'rolled back' });
      throw new Error('abort');
    }, { pipelined: true }),
    /abort/
  );
  t.same((await db('statementProbe').orderBy('id').select('longName')).map((row: { longName: string }) => row.longName), ['pool', 'lean', 'knex'], 'commits and rollbacks as the transaction decides');

  await t.rejects(runStatement(db, insert, { id: 5 }), /statement binding :longName is undefined/, 'a missing binding is refused before sending');
  await t.rejects(runStatement(db, insert, { id: 1, longName: 'again' }), { code: '23505' }, 'PostgreSQL errors come through as they are');
  const pool = (db.client as unknown as { pool: { numUsed(): number } }).pool;
  t.equal(pool.numUsed(), 0, 'every connection went back to the pool');
});

t.test('runStatementsAndCommit: the last statements and the COMMIT in one round trip, all or nothing', async (t) => {
  const app = await buildApp(t);
  // The app's outbox relay shares the pool: stopped, so that the pool holds only what this test runs.
  await app.ctx.outbox.stop();
  const db = app.ctx.db;
  await db.raw('create table pipeline_probe (id int primary key, note text not null)');
  const insert = defineStatement('insert into pipeline_probe (id, note) values (:id, :note) returning id');
  const count = async () => Number(((await db.raw('select count(*)::int as n from pipeline_probe')).rows[0] as { n: number }).n);

  let ran = 0;
  const results = await transaction(db, async (sql) => {
    await runStatement(sql, insert, { id: 1, note: 'first' });
    const last = await runStatementsAndCommit(sql, [
      { statement: insert, values: { id: 2, note: 'second' }, ran: () => (ran += 1) },
      { statement: insert, values: { id: 3, note: 'third' } }
    ]);
    await t.rejects(runStatement(sql, insert, { id: 4, note: 'late' }), /transaction has ended/, 'nothing runs on the handle after its COMMIT');
    return last;
  }, { pipelined: true });
  t.same(results.map((result) => result.rows[0]), [{ id: 2 }, { id: 3 }], 'results in order');
  t.equal(ran, 1, 'a call hears that it ran');
  t.equal(await count(), 3, 'all three committed');

  await t.rejects(
    transaction(db, async (sql) => {
      await runStatement(sql, insert, { id: 10, note: 'kept only with the rest' });
      await runStatementsAndCommit(sql, [
        { statement: insert, values: { id: 1, note: 'duplicate key' } },
        { statement: insert, values: { id: 11, note: 'sent behind the failure' } }
      ]);
    }, { pipelined: true }),
    { code: '23505' },
    'the failure is thrown'
  );
  t.equal(await count(), 3, 'the COMMIT sent behind the failure rolled everything back');

  // A failure right behind the pipelined BEGIN: rolled back, and the connection serves the next transaction.
  await t.rejects(transaction(db, (sql) => runStatement(sql, insert, { id: 1, note: 'duplicate' }), { pipelined: true }), { code: '23505' });
  await transaction(db, (sql) => runStatement(sql, insert, { id: 20, note: 'after' }), { pipelined: true });
  t.equal(await count(), 4);
  const client = db.client as unknown as { acquireConnection(): Promise<{ pipeline?: boolean }>; releaseConnection(connection: unknown): Promise<void> };
  const connection = await client.acquireConnection();
  t.equal(connection.pipeline, false, 'pipeline mode ends with the transaction (COPY and cursors refuse it)');
  await client.releaseConnection(connection);
  const pool = (db.client as unknown as { pool: { numUsed(): number } }).pool;
  t.equal(pool.numUsed(), 0, 'every connection went back to the pool');
});
