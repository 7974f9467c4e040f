import type { Knex } from 'knex';

/**
 * Citus-ready by store (issue #27, docs/scaling.md): every store-scoped table carries `store_id` in
 * its primary key, in its unique constraints and in its foreign keys to other store-scoped tables, so
 * that each could be `create_distributed_table(…, 'store_id')`, all co-located.
 *
 * - The seven tables that hung off a store-scoped parent without `store_id` get it, filled from the
 *   parent (the owning services now write it on insert).
 * - Primary keys become the old key plus `store_id` (`(id, store_id)`, `(campaign_id, batch,
 *   store_id)`…): `store_id` last, so that the old lookups by id alone still use the index.
 * - Global unique keys on store-scoped tables become per store: a cart's line per variant, an
 *   order's checkout session and tracking token, a session's payment intent, a refund's Stripe id.
 *   The values are random or Stripe's own (unique across Stripe), so nothing real is lost.
 * - Each foreign key between store-scoped tables becomes `(store_id, x_id) REFERENCES t (store_id,
 *   id)`, with the same delete action; `SET NULL` names its column (PostgreSQL 15), since `store_id`
 *   is NOT NULL. The FKs are read from the catalog, so this file needs no list of them.
 * - The storefront triggers' upserts name the new keys.
 *
 * The list of store-scoped tables is frozen here (a later classification in
 * src/platform/table-distribution.ts does not change what this migration did).
 */
const STORE_TABLES = [
  'products', 'product_variants', 'product_media', 'media', 'collections', 'collection_products', 'inventory_ledger',
  'storefront_products', 'storefront_search', 'carts', 'cart_items', 'checkout_sessions', 'stock_reservations', 'orders',
  'order_items', 'order_events', 'order_refunds', 'order_returns', 'fulfillments', 'store_daily_revenue', 'customers',
  'store_customer_counts', 'discounts', 'store_email_settings', 'store_issues', 'external_system_links', 'idempotency_keys',
  'reviews', 'product_ratings', 'campaigns', 'campaign_batches', 'campaign_recipients', 'campaign_clicks', 'marketing_lists',
  'marketing_list_members', 'marketing_suppressions', 'marketing_templates', 'webhook_subscriptions', 'webhook_events',
  'webhook_deliveries'
];

/** Child table, its parent, and the child's column that names the parent's id. */
const NEW_STORE_COLUMNS: Array<[child: string, parent: string, parentColumn: string]> = [
  ['product_media', 'products', 'product_id'],
  ['collection_products', 'collections', 'collection_id'],
  ['storefront_products', 'products', 'product_id'],
  ['campaign_batches', 'campaigns', 'campaign_id'],
  ['campaign_recipients', 'campaigns', 'campaign_id'],
  ['campaign_clicks', 'campaigns', 'campaign_id'],
  ['marketing_list_members', 'marketing_lists', 'list_id']
];

/** Unique constraints and indexes that were global: [table, name, old columns, constraint or partial-index predicate]. */
const UNIQUES: Array<{ table: string; name: string; columns: string; where?: string }> = [
  { table: 'cart_items', name: 'cart_items_cart_id_variant_id_key', columns: 'cart_id, variant_id' },
  { table: 'orders', name: 'orders_checkout_session_id_key', columns: 'checkout_session_id' },
  { table: 'orders', name: 'orders_tracking_token_key', columns: 'tracking_token' },
  { table: 'order_refunds', name: 'order_refunds_stripe_refund_id_key', columns: 'stripe_refund_id' },
  { table: 'checkout_sessions', name: 'checkout_sessions_payment_intent_key', columns: 'payment_intent_id', where: 'payment_intent_id IS NOT NULL' }
];

interface ForeignKey {
  table: string;
  name: string;
  definition: string;
}

async function foreignKeysBetweenStoreTables(knex: Knex): Promise<ForeignKey[]> {
  const { rows } = await knex.raw(
    `SELECT s.relname AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS definition
       FROM pg_constraint c JOIN pg_class s ON s.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
      WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace AND s.relname = ANY(?) AND r.relname = ANY(?)
      ORDER BY 1, 2`,
    [STORE_TABLES, STORE_TABLES]
  );
  return rows as ForeignKey[];
}

async function primaryKeys(knex: Knex): Promise<Array<{ table: string; name: string; columns: string[] }>> {
  const { rows } = await knex.raw(
    `SELECT t.relname AS table, c.conname AS name,
            array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i) AS columns
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
      WHERE c.contype = 'p' AND c.connamespace = 'public'::regnamespace AND t.relname = ANY(?)
      ORDER BY 1`,
    [STORE_TABLES]
  );
  return rows as Array<{ table: string; name: string; columns: string[] }>;
}

const FK_SHAPE = /^FOREIGN KEY \(([^)]*)\) REFERENCES ([a-z_]+)\(([^)]*)\)(.*)$/;

/** `FOREIGN KEY (a) REFERENCES t(id) ON DELETE SET NULL` → `FOREIGN KEY (store_id, a) REFERENCES t(store_id, id) ON DELETE SET NULL (a)`. */
function withStore(definition: string): string {
  const m = FK_SHAPE.exec(definition);
  if (!m) throw new Error(`unexpected foreign key: ${definition}`);
  const [, columns, target, referenced, rest] = m as unknown as [string, string, string, string, string];
  const actions = rest.replace(/ON DELETE SET NULL(?! \()/, `ON DELETE SET NULL (${columns})`);
  return `FOREIGN KEY (store_id, ${columns}) REFERENCES ${target}(store_id, ${referenced})${actions}`;
}

/** The reverse of withStore. */
function withoutStore(definition: string): string {
  const m = FK_SHAPE.exec(definition);
  if (!m) throw new Error(`unexpected foreign key: ${definition}`);
  const [, columns, target, referenced, rest] = m as unknown as [string, string, string, string, string];
  const strip = (list: string) => list.split(', ').filter((c) => c !== 'store_id').join(', ');
  return `FOREIGN KEY (${strip(columns)}) REFERENCES ${target}(${strip(referenced)})${rest.replace(/ON DELETE SET NULL \([^)]*\)/, 'ON DELETE SET NULL')}`;
}

const REFRESH_STOREFRONT_PRODUCTS = (conflict: string, storeColumn: boolean) => `
  CREATE OR REPLACE FUNCTION refresh_storefront_products(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF ids IS NULL OR cardinality(ids) = 0 THEN
        RETURN;
      END IF;
      INSERT INTO storefront_products (${storeColumn ? 'store_id, ' : ''}product_id, document)
        SELECT ${storeColumn ? 'p.store_id, ' : ''}p.id, '' FROM products p WHERE p.id = ANY(ids) ORDER BY p.id
        ON CONFLICT (${conflict}) DO NOTHING;
      PERFORM 1 FROM storefront_products s WHERE s.product_id = ANY(ids) ORDER BY s.product_id FOR UPDATE;
      -- A new statement: a new snapshot, taken after the locks were granted.
      UPDATE storefront_products s SET document = d.document
        FROM storefront_product_documents(ids) d
       WHERE s.product_id = d.product_id AND s.document IS DISTINCT FROM d.document;
    END $$`;

const STOREFRONT_SEARCH_FROM_PRODUCTS = (conflict: string, set: string) => `
  CREATE OR REPLACE FUNCTION storefront_search_from_products() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        DELETE FROM storefront_search s USING new_rows n
         WHERE s.id = n.id AND n.status <> 'active';
        INSERT INTO storefront_search (id, store_id, search)
          SELECT n.id, n.store_id, n.search
            FROM new_rows n JOIN old_rows o ON o.id = n.id
           WHERE n.status = 'active' AND (o.status, o.store_id, o.search) IS DISTINCT FROM (n.status, n.store_id, n.search)
           ORDER BY n.id
        ON CONFLICT (${conflict}) DO UPDATE SET ${set};
      ELSE
        INSERT INTO storefront_search (id, store_id, search)
          SELECT n.id, n.store_id, n.search FROM new_rows n WHERE n.status = 'active' ORDER BY n.id;
      END IF;
      RETURN NULL;
    END $$`;

export async function up(knex: Knex): Promise<void> {
  for (const [child, parent, column] of NEW_STORE_COLUMNS) {
    await knex.raw(`ALTER TABLE ${child} ADD COLUMN store_id uuid`);
    await knex.raw(`UPDATE ${child} c SET store_id = p.store_id FROM ${parent} p WHERE p.id = c.${column}`);
    await knex.raw(`ALTER TABLE ${child} ALTER COLUMN store_id SET NOT NULL`);
    await knex.raw(`ALTER TABLE ${child} ADD CONSTRAINT ${child}_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
  }

  const foreignKeys = await foreignKeysBetweenStoreTables(knex);
  for (const fk of foreignKeys) await knex.raw(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${fk.name}`);
  for (const pk of await primaryKeys(knex)) {
    if (pk.columns.includes('store_id')) continue;
    await knex.raw(`ALTER TABLE ${pk.table} DROP CONSTRAINT ${pk.name}, ADD CONSTRAINT ${pk.name} PRIMARY KEY (${[...pk.columns, 'store_id'].join(', ')})`);
  }
  for (const u of UNIQUES) {
    if (u.where) {
      await knex.raw(`DROP INDEX ${u.name}`);
      await knex.raw(`CREATE UNIQUE INDEX ${u.name} ON ${u.table} (${u.columns}, store_id) WHERE ${u.where}`);
    } else {
      await knex.raw(`ALTER TABLE ${u.table} DROP CONSTRAINT ${u.name}, ADD CONSTRAINT ${u.name} UNIQUE (${u.columns}, store_id)`);
    }
  }
  for (const fk of foreignKeys) await knex.raw(`ALTER TABLE ${fk.table} ADD CONSTRAINT ${fk.name} ${withStore(fk.definition)}`);

  await knex.raw(REFRESH_STOREFRONT_PRODUCTS('product_id, store_id', true));
  await knex.raw(STOREFRONT_SEARCH_FROM_PRODUCTS('id, store_id', 'search = excluded.search'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(STOREFRONT_SEARCH_FROM_PRODUCTS('id', 'store_id = excluded.store_id, search = excluded.search'));

  const foreignKeys = await foreignKeysBetweenStoreTables(knex);
  for (const fk of foreignKeys) await knex.raw(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${fk.name}`);
  for (const u of UNIQUES) {
    if (u.where) {
      await knex.raw(`DROP INDEX ${u.name}`);
      await knex.raw(`CREATE UNIQUE INDEX ${u.name} ON ${u.table} (${u.columns}) WHERE ${u.where}`);
    } else {
      await knex.raw(`ALTER TABLE ${u.table} DROP CONSTRAINT ${u.name}, ADD CONSTRAINT ${u.name} UNIQUE (${u.columns})`);
    }
  }
  // Tables whose key was store_id-led before (idempotency_keys, store_daily_revenue…) keep it.
  for (const pk of await primaryKeys(knex)) {
    if (pk.columns.at(-1) !== 'store_id' || pk.columns.length < 2) continue;
    await knex.raw(`ALTER TABLE ${pk.table} DROP CONSTRAINT ${pk.name}, ADD CONSTRAINT ${pk.name} PRIMARY KEY (${pk.columns.slice(0, -1).join(', ')})`);
  }
  await knex.raw(REFRESH_STOREFRONT_PRODUCTS('product_id', false));
  for (const [child] of NEW_STORE_COLUMNS) await knex.raw(`ALTER TABLE ${child} DROP COLUMN store_id`);
  for (const fk of foreignKeys) await knex.raw(`ALTER TABLE ${fk.table} ADD CONSTRAINT ${fk.name} ${withoutStore(fk.definition)}`);
}
