import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';

/**
 * Runs SQL ($1, $2 … placeholders) on a pooled connection, as a named prepared statement when
 * `prepare` is set: PostgreSQL then parses and plans it once per connection instead of per request.
 * The storefront's reads are a few shapes run thousands of times a second, and planning one cost
 * about twice as much as executing it. Shapes whose best plan depends on the values (full-text
 * search, tag filters) are not prepared, so a generic plan never replaces a good custom one.
 * Rows come back exactly as PostgreSQL names the columns (no key mapping).
 */
const statementNames = new Map<string, string>();
const MAX_NAMES = 5_000;

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `sf_${createHash('sha1').update(text).digest('base64url').slice(0, 24)}`;
    if (statementNames.size < MAX_NAMES) statementNames.set(text, name);
  }
  return name;
}

export async function storefrontQuery<Row>(db: Knex, text: string, values: unknown[], prepare: boolean): Promise<Row[]> {
  const connection = (await db.client.acquireConnection()) as pg.Client;
  try {
    const result = await connection.query<Row & pg.QueryResultRow>(prepare ? { name: statementName(text), text, values } : { text, values });
    return result.rows;
  } finally {
    await db.client.releaseConnection(connection);
  }
}
