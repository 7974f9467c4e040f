import type { Knex } from 'knex';

/**
 * The storefront search index, per store (issue #38). The GIN index on `storefront_search.search`
 * held every store's lexemes under the same keys, so a search found every store's matches in the
 * index and read each of their rows only to drop the other stores' by `store_id`: its cost grew
 * with the whole database's catalog, not the store's (two stores with the same 10,000 products:
 * 1.72-2.42 ms of PostgreSQL CPU per `linen shirt` search, 1.18-1.68 ms keyed per store, the cost of
 * one store alone; load ~11, alternating rounds).
 *
 * Now every key of the index starts with a 4-character tag of its store: the index is on
 * `storefront_search_key(search, store_id)`, the same vector with each lexeme prefixed by the tag,
 * and a search asks it for `storefront_search_key_query(query, store_id)`, the same query with each
 * lexeme prefixed the same way. A prefix term (`'linen':*`) becomes a prefix of the store's own keys
 * only. Both rewrite the text form, in which every lexeme is quoted (`'…'`, a quote doubled), so
 * positions, weights, prefixes, phrases, negations and alternatives stay as they were: for a row of
 * the store, key(search) @@ key_query(query) exactly when search @@ query. Ranking reads `search`.
 * The tag is 24 bits of the store id; two stores that share one only find each other's rows again
 * (the `store_id` condition of every search still drops them), they never see them.
 *
 * Measured and not adopted: btree_gin with `store_id` as a second column of the index. Its
 * `store_id` key holds every row of the store, which each search intersects with its terms' rows:
 * more work than the rows it spares (one store: ~1.5-2.0 ms against ~0.8-1.0; two stores: no better
 * than without it). The index holds an entry per store and lexeme instead of per lexeme: ~20% larger
 * for one store (816 kB against 672 kB for 10,000 products), 2.2x for two stores that share their whole
 * vocabulary (the bench catalog seeded twice: 1,616 kB against 744 kB); writes compute the tagged vector
 * once per search row written. Building it over 20,000 rows took 2 s on a loaded two-core machine.
 *
 * SQL-standard function bodies (RETURN): bound when created, so the index's expression does not
 * depend on the search_path of whoever restores or rebuilds it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(String.raw`
    -- Every lexeme of the parser's output is letters, digits and a few of . / - _ @ ~ +: no quote, no
    -- space, so each lexeme's opening quote is the text's first character or follows a space, and a
    -- plain replace() puts the tag behind it (cheaper than the regular expression; this runs once per
    -- search row written). Any vector where that could be wrong (a quote, or a space next to a quote,
    -- inside a lexeme) takes the regular expression, which reads the quoting itself. One expression,
    -- no subquery, so PostgreSQL inlines it into the index expression (a subquery measured slower).
    CREATE FUNCTION storefront_search_key(search tsvector, store_id uuid) RETURNS tsvector
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN (CASE
        WHEN strpos(search::text, '''''') = 0 AND strpos(search::text, ' '':') = 0 AND strpos(search::text, ' '' ') = 0 AND right(search::text, 2) <> ' '''
          THEN substr(replace(' ' || search::text, ' ''', ' ''' || encode(substring(uuid_send(store_id) FROM 1 FOR 3), 'base64')), 2)
        ELSE regexp_replace(search::text, '''(([^'']|'''')*)''', '''' || encode(substring(uuid_send(store_id) FROM 1 FOR 3), 'base64') || '\1''', 'g')
      END)::tsvector;

    CREATE FUNCTION storefront_search_key_query(query tsquery, store_id uuid) RETURNS tsquery
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN regexp_replace(query::text, '''(([^'']|'''')*)''', '''' || encode(substring(uuid_send(store_id) FROM 1 FOR 3), 'base64') || '\1''', 'g')::tsquery;

    DROP INDEX storefront_search_idx;
    -- No pending list, as before: searches far outnumber product writes.
    CREATE INDEX storefront_search_idx ON storefront_search USING gin (storefront_search_key(search, store_id)) WITH (fastupdate = off);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX storefront_search_idx;
    CREATE INDEX storefront_search_idx ON storefront_search USING gin (search) WITH (fastupdate = off);
    DROP FUNCTION storefront_search_key_query(tsquery, uuid);
    DROP FUNCTION storefront_search_key(tsvector, uuid);
  `);
}
