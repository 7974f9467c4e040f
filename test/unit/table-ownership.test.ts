import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { MODULES } from '../../src/installed-modules.js';
import { ownerPath, PLATFORM_OWNERS, TABLE_OWNERS } from '../../src/platform/table-owners.js';

// Sources are read from the repository (tests run from its root), not from dist/.
const ROOT = process.cwd();

const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** The tables the migrations leave behind: each `up` in order, CREATE TABLE adds, DROP TABLE removes. */
function migrationTables(): Set<string> {
  const tables = new Set<string>();
  const files = readdirSync(path.join(ROOT, 'migrations')).filter((f) => /^\d+_.*\.ts$/.test(f)).sort();
  for (const file of files) {
    const text = readFileSync(path.join(ROOT, 'migrations', file), 'utf8');
    const up = text.slice(text.indexOf('function up'), text.includes('function down') ? text.indexOf('function down') : undefined);
    for (const m of up.matchAll(/\b(create\s+(?:unlogged\s+)?table(?:\s+if\s+not\s+exists)?|drop\s+table(?:\s+if\s+exists)?)\s+([a-z_]+)/gi)) {
      if (m[1]!.toLowerCase().startsWith('create')) tables.add(m[2]!.toLowerCase());
      else tables.delete(m[2]!.toLowerCase());
    }
  }
  return tables;
}

const RAW_WRITE =
  /\binsert\s+into\s+([a-z_]+)|\bupdate\s+([a-z_]+)\s+(?:as\s+)?(?:[a-z_]+\s+)?set\b|\bdelete\s+from\s+([a-z_]+)|\bcopy\s+([a-z_]+)\s*(?:\(|from\b)|\btruncate\s+(?:table\s+)?([a-z_]+)|\bmerge\s+into\s+([a-z_]+)/gi;
const BUILDER = /\(\s*'([a-zA-Z_]+)(?:\s+as\s+\w+)?'\s*\)/g;
const BUILDER_WRITE = /\.(insert|update|delete|del|increment|decrement|upsert|merge)\(/;

/**
 * The tables a source text writes, at grep level: raw SQL (insert into, update … set, delete from,
 * copy, truncate, merge into) and knex builders (`db('table')` then, before the statement's `;`,
 * .insert/.update/.delete/.increment/.decrement/.merge).
 */
function tablesWritten(source: string, tables: Set<string>): Set<string> {
  const byCamel = new Map([...tables].map((table) => [camelCase(table), table]));
  const written = new Set<string>();
  for (const m of source.matchAll(RAW_WRITE)) {
    const table = m.slice(1).find(Boolean)!.toLowerCase();
    if (tables.has(table)) written.add(table);
  }
  for (const m of source.matchAll(BUILDER)) {
    const table = byCamel.get(m[1]!) ?? (tables.has(m[1]!) ? m[1]! : undefined);
    if (!table) continue;
    const end = source.indexOf(';', m.index! + m[0].length);
    if (BUILDER_WRITE.test(source.slice(m.index! + m[0].length, end < 0 ? undefined : end))) written.add(table);
  }
  return written;
}

const srcPath = (owner: string) => `src/${ownerPath(owner)}`;
const isOwnedBy = (file: string, owner: string) => {
  const p = srcPath(owner);
  return p.endsWith('/') ? file.startsWith(p) : file === p;
};

/** Every write of a table outside its owner. */
function foreignWrites(files: Record<string, string>, tables: Set<string>): string[] {
  const found: string[] = [];
  for (const [file, source] of Object.entries(files)) {
    for (const table of tablesWritten(source, tables)) {
      const owner = TABLE_OWNERS[table];
      if (!owner) {
        found.push(`${file} writes ${table}, which has no owner in src/platform/table-owners.ts`);
        continue;
      }
      if (isOwnedBy(file, owner)) continue;
      found.push(`${file} writes ${table}, owned by ${owner} (${srcPath(owner)}): call that module instead`);
    }
  }
  return found;
}

const tables = migrationTables();
const sources = Object.fromEntries(sourceFiles('src').map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8')]));

t.test('every table the migrations create has exactly one owning module, and every owned table exists', async (t) => {
  t.same([...tables].filter((table) => !TABLE_OWNERS[table]).sort(), [], 'tables without an owner in src/platform/table-owners.ts');
  t.same(Object.keys(TABLE_OWNERS).filter((table) => !tables.has(table)).sort(), [], 'owners of tables no migration leaves');
  t.ok(tables.size >= 40, `read the migrations (${tables.size} tables)`);
  for (const owner of new Set(Object.values(TABLE_OWNERS))) {
    t.ok(Object.keys(sources).some((file) => file.startsWith(srcPath(owner))), `${owner}: ${srcPath(owner)} exists`);
  }
});

t.test('one meaning of "module": a folder under src/services/ with an index.ts, its Module installed, the name table owners use', async (t) => {
  const folders = readdirSync(path.join(ROOT, 'src/services'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  t.ok(folders.length >= 15, `read src/services/ (${folders.length} modules)`);
  t.same(readdirSync(path.join(ROOT, 'src/services')).filter((name) => !folders.includes(name)), [], 'src/services/ holds module folders only');
  t.same([...MODULES.map((module) => module.name)].sort(), folders, 'src/installed-modules.ts lists each module folder once, by its name');
  for (const folder of folders) t.ok(sources[`src/services/${folder}/index.ts`], `${folder} has its face, index.ts`);
  const owners = new Set(Object.values(TABLE_OWNERS));
  t.same([...owners].filter((owner) => !folders.includes(owner) && !(owner in PLATFORM_OWNERS)), [], 'every owner is a module or a part of the platform');
});

t.test('no source file writes a table it does not own', async (t) => {
  t.same(foreignWrites(sources, tables), []);
});

t.test('the check sees writes in both spellings and fails on a foreign one', async (t) => {
  const sample = (source: string) => [...tablesWritten(source, tables)].sort();
  t.same(sample(`await trx('productVariants').where({ id }).update({ price: 1 });`), ['product_variants']);
  t.same(sample(`await trx('products as p')\n  .where({ id })\n  .delete();`), ['products']);
  t.same(sample(`await db('products').where({ id }).first();\nawait db('orders').insert(row);`), ['orders'], 'a read is not a write');
  t.same(sample('insert into customers as c (email) values ($1) on conflict do update set email = excluded.email'), ['customers']);
  t.same(sample('update store_issues i set resolved_at = now() where i.id = $1'), ['store_issues']);
  t.same(sample('delete from outbox where id = any($1)'), ['outbox']);
  t.same(sample('select * from orders for update of orders'), [], 'a lock is not a write');
  const planted = foreignWrites({ 'src/services/marketing/planted.ts': `await trx('products').where({ storeId }).update({ title });` }, tables);
  t.same(planted, ['src/services/marketing/planted.ts writes products, owned by catalog (src/services/catalog/): call that module instead']);
  t.same(foreignWrites({ 'src/use-cases/planted.ts': `update checkout_sessions set status = 'completed' where id = $1` }, tables), ['src/use-cases/planted.ts writes checkout_sessions, owned by checkout (src/services/checkout/): call that module instead'], 'a use case calls the owner too');
  t.same(foreignWrites({ 'src/services/catalog/planted.ts': `await trx('products').where({ storeId }).update({ title });` }, tables), [], 'the owner may');
});
