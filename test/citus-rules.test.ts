import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createDb } from '../src/db/knex.js';
import { catalogViolations } from './helpers/citus-rules.js';
import { readStatementLog, statementViolations, tablesNamed } from './helpers/citus-statements.js';
import { createTestDatabase, dropTestDatabase, TEMPLATE_DATABASE } from './helpers/databases.js';

// The Citus rules of issue #27 (docs/scaling.md), on the migrated schema and on the statements a
// representative run of the suite sends (a child tap run: minutes, hence the file's own timeout).
t.setTimeout(20 * 60_000);
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

/**
 * The query half: run a representative set of the suite's files (or read CITUS_STATEMENT_LOG, the
 * STATEMENT_LOG_DIR of a run made beforehand, e.g. the whole suite) and check every statement the
 * app sent. The child run has a template of its own, so it never touches this run's.
 */
const REPRESENTATIVE = [
  'catalog-products', 'catalog-collections', 'catalog-media', 'catalog-inventory', 'catalog-storefront', 'carts', 'checkout', 'orders',
  'orders-lifecycle', 'customers-import', 'customers-admin', 'marketing-campaigns', 'marketing-api', 'marketing-delivery',
  'newsletter-unsubscribe', 'webhooks', 'webhook-sweep', 'storefront-documents-fresh', 'reviews', 'discounts', 'tenancy'
];

async function recordStatements(t: Test): Promise<string> {
  if (process.env.CITUS_STATEMENT_LOG) return process.env.CITUS_STATEMENT_LOG;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-statements-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tap/package.json');
  const tapBin = path.join(path.dirname(manifest), (require(manifest) as { bin: { tap: string } }).bin.tap);
  const files = REPRESENTATIVE.map((file) => `dist/test/${file}.test.js`);
  const env = { ...process.env, STATEMENT_LOG_DIR: dir, TEST_TEMPLATE_DATABASE: `${TEMPLATE_DATABASE.slice(0, 50)}_stmts` };
  const child = spawn(process.execPath, [tapBin, '--disable-coverage', '--reporter=terse', ...files], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.equal(code, 0, `the representative files pass with the statement log on${code === 0 ? '' : `:\n${output.slice(-4000)}`}`);
  return dir;
}

t.test('queries: every statement on a store-scoped table names store_id', { timeout: 19 * 60_000 }, async (t) => {
  const statements = readStatementLog(await recordStatements(t));
  t.ok(statements.length > 500, `read the statements the app sent (${statements.length} distinct per process)`);
  const violations = statementViolations(statements);
  t.same(violations.map((v) => `[${v.tables.join(', ')}] ${v.sql}`), [], 'statements on store-scoped tables without store_id (nor a listed cross-store marker)');
});

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
