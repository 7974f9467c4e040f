import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { createDb } from '../../../src/db/knex.js';
import { catalogViolations } from '../../helpers/citus-rules.js';
import { citusDistributionScript, documentedScript } from '../../helpers/citus-script.js';
import { statementViolations, tablesNamed } from '../../helpers/citus-statements.js';
import { createTestDatabase, dropTestDatabase } from '../../helpers/databases.js';

// The Citus rules of issue #27 (docs/scaling.md) on the migrated schema, and the statement check the
// test runner applies to everything the suite sent.
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
  const planted = new Error('planted: roll back');
  const found: string[] = [];
  await db
    .transaction(async (trx) => {
      await trx.raw(`alter table products add column legacy_code text`);
      await trx.raw(`create unique index planted_products_code on products (legacy_code)`);
      await trx.raw(`create table planted_unclassified (id int primary key)`);
      await trx.raw(`alter table order_items add constraint planted_fk foreign key (product_id, variant_id) references products (id, store_id) not valid`);
      await trx.raw(`alter table stores add column planted_product uuid, add column planted_store uuid`);
      await trx.raw(`alter table stores add constraint planted_ref_fk foreign key (planted_product, planted_store) references products (id, store_id)`);
      found.push(...(await catalogViolations(trx as unknown as typeof db)));
      throw planted;
    })
    .catch((error: unknown) => {
      if (error !== planted) throw error;
    });
  t.ok(found.some((v) => v.includes('planted_products_code lacks store_id')), 'a unique index without store_id');
  t.ok(found.some((v) => v.startsWith('planted_unclassified: not classified')), 'an unclassified table');
  t.ok(found.some((v) => v.startsWith('planted_fk: foreign key between store-scoped tables without store_id')), 'a store-to-store foreign key without store_id');
  t.ok(found.some((v) => v.startsWith('planted_ref_fk: a reference table refers to a store-scoped one')), 'a reference table referring to a store table');
  t.same(await catalogViolations(db), [], 'rolled back');
});

/*
 * The query half runs over the whole suite, not here: test/setup/run-tap.ts sets STATEMENT_LOG_DIR for
 * every process of the run (test/setup/statement-log.ts) and, after the last file, fails `npm test` on a
 * statement that touches a store-scoped table without naming store_id (statementViolations below).
 */

t.test('the statement check reads table names and store_id at text level', async (t) => {
  t.same(tablesNamed('select * from "products" where "id" = $1'), ['products']);
  t.same(tablesNamed('select 1 from orders o, order_items i join customers c on c.id = i.x').sort(), ['customers', 'order_items', 'orders']);
  t.same(tablesNamed(`insert into outbox (name) values ('from products')`), ['outbox'], 'not inside string literals');
  t.same(statementViolations(['select * from "products" where "id" = $1']).map((v) => v.tables), [['products']]);
  t.same(statementViolations(['select * from "products" where "store_id" = $1 and "id" = $2', 'select * from users where id = $1', 'delete from outbox where id = $1']), []);
  t.same(statementViolations(['select id, store_id from campaigns where id = $1', 'update orders set status = $1 where id = $2 returning store_id']).length, 2, 'reading store_id does not count');
  t.same(statementViolations(['insert into cart_items (store_id, cart_id) select $1, $2 from carts where id = $2']), [], 'an inserted store_id counts');
  t.same(statementViolations(['/* cross-store: public media url */ select * from "media" where "id" = $1']), [], 'a listed cross-store marker');
  t.equal(statementViolations(['/* cross-store: anything */ select * from "media" where "id" = $1']).length, 1, 'an unlisted marker does not pass');
});

t.test('docs/scaling.md distributes every classified table, parents before children', async (t) => {
  const expected = await citusDistributionScript(db);
  const documented = documentedScript(readFileSync('docs/scaling.md', 'utf8'));
  t.equal(documented, expected, 'the script in docs/scaling.md is the one the classification and the foreign keys give (test/helpers/citus-script.ts)');
});
