import type { Knex } from 'knex';

/**
 * Modules land one by one (orders, marketing…), and earlier ones reach into later tables when they
 * exist. Only "present" is remembered: a table never disappears under a running process, but one may
 * appear when a newer release migrates.
 */
const present = new Set<string>();

export async function tableExists(db: Knex | Knex.Transaction, table: string): Promise<boolean> {
  if (present.has(table)) return true;
  const result = await db.raw('select to_regclass(?) is not null as present', [`public.${table}`]);
  const exists = Boolean(result.rows[0]?.present);
  if (exists) present.add(table);
  return exists;
}

export async function columnExists(db: Knex | Knex.Transaction, table: string, column: string): Promise<boolean> {
  const key = `${table}.${column}`;
  if (present.has(key)) return true;
  const result = await db.raw(
    `select exists (select 1 from information_schema.columns where table_schema = 'public' and table_name = ? and column_name = ?) as present`,
    [table, column]
  );
  const exists = Boolean(result.rows[0]?.present);
  if (exists) present.add(key);
  return exists;
}
