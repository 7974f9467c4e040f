import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';

/**
 * Runs SQL ($1, $2 … placeholders) on a pooled connection, as a named prepared statement when
 * `prepare` is set: PostgreSQL then parses and plans it once per connection instead of per request.
 * The storefront's reads are a few shapes run thousands of times a second, and planning one cost
 * about twice as much as executing it. Shapes whose best plan depends on the values (full-text
 * search, tag filters, price ranges) are not prepared, so a generic plan never replaces a good
 * custom one; the others must make their generic plan the good one (see PAGE_ROW_BOUND).
 * Rows come back exactly as PostgreSQL names the columns (no key mapping).
 */
const statementNames = new Map<string, string>();
/**
 * Every connection keeps each statement it prepared (about 75 KB of backend memory apiece) until it
 * closes, so the shapes prepared are bounded: the storefront has about 50 (sort x collection x
 * inStock x cursor, product, collections); past the bound a new shape runs unprepared.
 */
const MAX_PREPARED_SHAPES = 200;

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_PREPARED_SHAPES) {
    name = `sf_${createHash('sha1').update(text).digest('base64url').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

export async function storefrontQuery<Row>(db: Knex, text: string, values: unknown[], prepare: boolean): Promise<Row[]> {
  const name = prepare ? statementName(text) : undefined;
  const connection = (await db.client.acquireConnection()) as pg.Client;
  try {
    const result = await connection.query<Row & pg.QueryResultRow>(name ? { name, text, values } : { text, values });
    return result.rows;
  } finally {
    await db.client.releaseConnection(connection);
  }
}
