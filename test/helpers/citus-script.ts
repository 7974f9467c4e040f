import type { Knex } from 'knex';
import { TABLE_DISTRIBUTION } from '../../src/platform/table-distribution.js';

/**
 * The distribution script docs/scaling.md gives an operator, made from the classification
 * (src/platform/table-distribution.ts) and a migrated database's foreign keys, so the document
 * cannot fall behind the migrations: every table of each kind, parents before children (Citus
 * creates a distributed table's foreign keys as it distributes it), ties in the classification's
 * order. Local tables with a foreign key to a reference table join Citus' metadata, with the local
 * tables tied to them by foreign keys.
 */
export async function citusDistributionScript(db: Knex): Promise<string> {
  const keys = (
    await db.raw(`select distinct c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
                    from pg_constraint c where c.contype = 'f' and c.connamespace = 'public'::regnamespace`)
  ).rows as Array<{ child: string; parent: string }>;
  const classified = Object.keys(TABLE_DISTRIBUTION);
  const ofKind = (kind: string) => classified.filter((table) => TABLE_DISTRIBUTION[table] === kind);
  const parentsOf = (table: string, within: string[]) => keys.filter((k) => k.child === table && k.parent !== table && within.includes(k.parent)).map((k) => k.parent);
  const parentsFirst = (tables: string[], first?: string) => {
    const placed: string[] = [];
    const left = first && tables.includes(first) && !parentsOf(first, tables).length ? [first, ...tables.filter((t) => t !== first)] : [...tables];
    while (left.length) {
      const next = left.findIndex((table) => parentsOf(table, tables).every((parent) => placed.includes(parent)));
      if (next === -1) throw new Error(`foreign keys in a cycle among ${left.join(', ')}`);
      placed.push(...left.splice(next, 1));
    }
    return placed;
  };
  const list = (tables: string[]) => {
    const lines: string[] = [];
    let line = ' ';
    for (const [i, table] of tables.entries()) {
      const item = ` '${table}'${i < tables.length - 1 ? ',' : ''}`;
      if (line.length + item.length > 100) {
        lines.push(line.trimEnd());
        line = ' ';
      }
      line += item;
    }
    lines.push(line.trimEnd());
    return lines.join('\n');
  };
  const reference = parentsFirst(ofKind('reference'));
  const [anchor, ...store] = parentsFirst(ofKind('store'), 'products');
  // Citus keeps a foreign key between local tables only when both are in its metadata: the tables
  // tied by keys to one that joins (either way, transitively) join too.
  const local = ofKind('local');
  const joinsMetadata = local.filter((table) => keys.some((k) => k.child === table && TABLE_DISTRIBUTION[k.parent] === 'reference'));
  for (let grew = true; grew; ) {
    const tied = local.filter((table) => !joinsMetadata.includes(table) && keys.some((k) => (k.child === table && joinsMetadata.includes(k.parent)) || (k.parent === table && joinsMetadata.includes(k.child))));
    joinsMetadata.push(...tied);
    grew = tied.length > 0;
  }
  return [
    'CREATE EXTENSION citus;',
    "-- workers: SELECT citus_add_node('worker-1', 5432); …",
    '',
    '-- Platform tables, copied to every node (parents first).',
    'SELECT create_reference_table(t) FROM unnest(ARRAY[',
    `${list(reference)}]) AS t;`,
    '',
    "-- Store tables: the first one sets the co-location group, every other joins it, so a store's rows",
    '-- of every table sit on the same node and joins on store_id stay local (parents first).',
    `SELECT create_distributed_table('${anchor}', 'store_id', shard_count => 64);`,
    `SELECT create_distributed_table(t, 'store_id', colocate_with => '${anchor}') FROM unnest(ARRAY[`,
    `${list(store)}]) AS t;`,
    '',
    '-- Infrastructure stays on the coordinator; the tables with a foreign key to a reference table',
    "-- (and those tied to them by one) join Citus' metadata as local tables.",
    'SELECT citus_add_local_table_to_metadata(t) FROM unnest(ARRAY[',
    `${list(joinsMetadata)}]) AS t;`
  ].join('\n');
}

/** The script as docs/scaling.md shows it: the sql block under "## The distribution, step by step". */
export function documentedScript(markdown: string): string | null {
  const section = markdown.indexOf('## The distribution, step by step');
  if (section === -1) return null;
  const start = markdown.indexOf('```sql\n', section);
  const end = markdown.indexOf('\n```', start + 7);
  return start === -1 || end === -1 ? null : markdown.slice(start + 7, end);
}
