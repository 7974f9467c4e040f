import { randomBytes } from 'node:crypto';
import t from 'tap';
import { createDb } from '../src/db/knex.js';
import { catalogViolations } from './helpers/citus-rules.js';
import { createTestDatabase, dropTestDatabase } from './helpers/databases.js';

// The Citus rules of issue #27 (docs/scaling.md), on the migrated schema.
const name = `sw_test_citus_${process.pid}_${randomBytes(4).toString('hex')}`;
const db = createDb(await createTestDatabase(name), { max: 2 });
t.teardown(async () => {
  await db.destroy();
  await dropTestDatabase(name);
});

t.test('catalog: every table classified; store-scoped keys, uniques and foreign keys carry store_id', async (t) => {
  t.same(await catalogViolations(db), []);
});

t.test('the catalog check fails on a planted violation of each kind', async (t) => {
  await db.transaction(async (trx) => {
    await trx.raw(`alter table products add column legacy_code text`);
    await trx.raw(`create unique index planted_products_code on products (legacy_code)`);
    await trx.raw(`create table planted_unclassified (id int primary key)`);
    await trx.raw(`alter table order_items add constraint planted_fk foreign key (product_id) references products (id)`).catch(() => undefined);
    const found = await catalogViolations(trx as never);
    t.ok(found.some((v) => v.includes('planted_products_code lacks store_id')), 'a unique index without store_id');
    t.ok(found.some((v) => v.startsWith('planted_unclassified: not classified')), 'an unclassified table');
    await trx.rollback();
  }).catch(() => undefined);
});
