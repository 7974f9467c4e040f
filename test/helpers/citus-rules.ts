import type { Knex } from 'knex';
import { TABLE_DISTRIBUTION } from '../../src/platform/table-distribution.js';

/**
 * The catalog half of the Citus rules (docs/scaling.md), read from a migrated database: each
 * violation as one line. A store-scoped table must have a NOT NULL `store_id` that is in its primary
 * key and in every unique constraint and unique index; every foreign key between two store-scoped
 * tables must pair `store_id` with `store_id`; a store-scoped table may refer to a reference table, a
 * reference table to no store-scoped one. Every table must be classified.
 */
export async function catalogViolations(db: Knex): Promise<string[]> {
  const found: string[] = [];
  const tables = (
    await db.raw(`select c.relname as name from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') order by 1`)
  ).rows.map((r: { name: string }) => r.name) as string[];
  for (const table of tables) if (!TABLE_DISTRIBUTION[table]) found.push(`${table}: not classified in src/platform/table-distribution.ts`);
  for (const table of Object.keys(TABLE_DISTRIBUTION)) if (!tables.includes(table)) found.push(`${table}: classified but no such table`);
  const kind = (table: string) => TABLE_DISTRIBUTION[table];

  const storeColumns = (
    await db.raw(
      `select table_name, is_nullable from information_schema.columns where table_schema = 'public' and column_name = 'store_id'`
    )
  ).rows as { tableName: string; isNullable: string }[];
  for (const table of tables.filter((t) => kind(t) === 'store')) {
    const column = storeColumns.find((c) => c.tableName === table);
    if (!column) found.push(`${table}: store-scoped but has no store_id column`);
    else if (column.isNullable !== 'NO') found.push(`${table}: store_id is nullable`);
  }

  // Primary keys, unique constraints and unique indexes (constraint-backed or not), with their columns.
  const uniques = (
    await db.raw(`
      select t.relname as table_name, i.relname as index_name, x.indisprimary as is_primary,
             array(select a.attname::text from unnest(x.indkey) k join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k) as columns,
             pg_get_indexdef(x.indexrelid) as definition
        from pg_index x join pg_class t on t.oid = x.indrelid join pg_class i on i.oid = x.indexrelid
       where t.relnamespace = 'public'::regnamespace and x.indisunique`)
  ).rows as { tableName: string; indexName: string; isPrimary: boolean; columns: string[]; definition: string }[];
  for (const table of tables.filter((t) => kind(t) === 'store')) {
    const own = uniques.filter((u) => u.tableName === table);
    if (!own.some((u) => u.isPrimary)) found.push(`${table}: no primary key`);
    for (const u of own) {
      if (!u.columns.includes('store_id')) found.push(`${table}: ${u.isPrimary ? 'primary key' : 'unique index'} ${u.indexName} lacks store_id (${u.definition})`);
    }
  }

  const foreignKeys = (
    await db.raw(`
      select c.conname as name, s.relname as source, r.relname as target,
             array(select a.attname::text from unnest(c.conkey) with ordinality k(n, i) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i) as columns,
             array(select a.attname::text from unnest(c.confkey) with ordinality k(n, i) join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i) as referenced
        from pg_constraint c join pg_class s on s.oid = c.conrelid join pg_class r on r.oid = c.confrelid
       where c.contype = 'f' and c.connamespace = 'public'::regnamespace`)
  ).rows as { name: string; source: string; target: string; columns: string[]; referenced: string[] }[];
  for (const fk of foreignKeys) {
    const [from, to] = [kind(fk.source), kind(fk.target)];
    const shape = `${fk.source}(${fk.columns.join(', ')}) -> ${fk.target}(${fk.referenced.join(', ')})`;
    if (from === 'store' && to === 'store') {
      const at = fk.columns.indexOf('store_id');
      if (at < 0 || fk.referenced[at] !== 'store_id') found.push(`${fk.name}: foreign key between store-scoped tables without store_id on both sides: ${shape}`);
    } else if (from !== 'store' && to === 'store') {
      found.push(`${fk.name}: a ${from} table refers to a store-scoped one: ${shape}`);
    } else if (from === 'store' && to === 'local') {
      found.push(`${fk.name}: a store-scoped table refers to a coordinator-local one: ${shape}`);
    }
  }
  return found;
}
