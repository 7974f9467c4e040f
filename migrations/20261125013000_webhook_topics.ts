import type { Knex } from 'knex';

/**
 * Webhook topics written by SQL, in the transaction of the change:
 *
 * - `record_webhook_events(store, topic, events, queue, job, options)`: the events (`[{ resourceId,
 *   data }]`), one delivery per enabled subscription of the store to the topic, and each delivery's
 *   job in the outbox. A store with no such subscription pays one indexed read and writes nothing.
 *   The checkout's `order.created` and the CSV import's `customer.*` run it inside their own
 *   statements; the services' other events go through services/webhooks/events.ts (the same rows).
 * - `inventory.low`: a trigger on `product_variants` fires only when the stored `low_stock` flag
 *   (deny policy, not archived, inventory_quantity <= 5: migration 20261123006900) turns on, whoever
 *   moved the stock (a checkout session, an adjustment or count, an import, the sync). A stock move
 *   that does not cross costs the trigger's WHEN test only. The job options are the
 *   `webhook-delivery` job's (src/jobs/webhook-delivery.ts; test/integration/webhooks/webhook-topics.test.ts compares).
 */
const DELIVERY_JOB_OPTIONS_SQL = `'{"attempts": 20, "backoff": {"type": "exponential", "delay": 1000}, "removeOnComplete": {"age": 3600, "count": 10000}}'::jsonb`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION record_webhook_events(p_store uuid, p_topic text, p_events jsonb, p_queue text, p_job text, p_options jsonb) RETURNS integer
    LANGUAGE plpgsql AS $$
    DECLARE
      subscribers uuid[];
      queued integer;
    BEGIN
      SELECT array_agg(id ORDER BY id) INTO subscribers
        FROM webhook_subscriptions WHERE store_id = p_store AND enabled AND p_topic = ANY(topics);
      IF subscribers IS NULL OR jsonb_array_length(p_events) = 0 THEN RETURN 0; END IF;
      -- Event by event, each to every subscriber in turn: the jobs of one event's endpoints sit
      -- together in the queue, so a worker's slots spread over endpoints (each has an in-flight cap).
      WITH ev AS (
        INSERT INTO webhook_events (store_id, topic, resource_id, data)
        SELECT p_store, p_topic, (e.value->>'resourceId')::uuid, e.value->'data' FROM jsonb_array_elements(p_events) WITH ORDINALITY e ORDER BY e.ordinality
        RETURNING id, seq
      ), d AS (
        INSERT INTO webhook_deliveries (subscription_id, event_id, store_id)
        SELECT s.id, ev.id, p_store FROM ev CROSS JOIN unnest(subscribers) WITH ORDINALITY AS s(id, n) ORDER BY ev.seq, s.n
        RETURNING id, subscription_id
      ), j AS (
        SELECT gen_random_uuid() AS id, d.id AS delivery_id, d.subscription_id FROM d
      ), o AS (
        INSERT INTO outbox (id, queue, name, job_id, payload, options)
        SELECT j.id, p_queue, p_job, j.id::text, jsonb_build_object('deliveryId', j.delivery_id, 'subscriptionId', j.subscription_id), p_options FROM j
        RETURNING 1
      )
      SELECT count(*) INTO queued FROM o;
      RETURN queued;
    END $$;

    CREATE FUNCTION webhook_inventory_low() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      stamp text := 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';
    BEGIN
      IF record_webhook_events(NEW.store_id, 'inventory.low', jsonb_build_array(jsonb_build_object(
           'resourceId', NEW.id,
           'data', jsonb_build_object(
             'id', NEW.id, 'productId', NEW.product_id, 'sku', NEW.sku, 'title', NEW.title, 'optionValues', NEW.option_values,
             'price', NEW.price, 'compareAtPrice', NEW.compare_at_price, 'inventoryQuantity', NEW.inventory_quantity,
             'inventoryPolicy', NEW.inventory_policy, 'available', NEW.inventory_policy = 'continue' OR NEW.inventory_quantity > 0,
             'position', NEW.position, 'lowStockThreshold', 5,
             'createdAt', to_char(NEW.created_at AT TIME ZONE 'UTC', stamp), 'updatedAt', to_char(NEW.updated_at AT TIME ZONE 'UTC', stamp)))),
         'webhooks', 'webhook-delivery', ${DELIVERY_JOB_OPTIONS_SQL}) > 0 THEN
        -- Rare (a crossing, with a subscriber): waking the relays at once is worth the NOTIFY.
        PERFORM pg_notify('outbox', '');
      END IF;
      RETURN NULL;
    END $$;

    -- The sweeper's look for deliveries left behind (services/webhooks/sweep.ts): open ones only.
    CREATE INDEX webhook_deliveries_open_idx ON webhook_deliveries (coalesce(next_retry_at, created_at)) WHERE status IN ('pending', 'delivering');

    CREATE TRIGGER product_variants_inventory_low AFTER UPDATE ON product_variants
      FOR EACH ROW WHEN (NEW.low_stock AND NOT OLD.low_stock) EXECUTE FUNCTION webhook_inventory_low();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS product_variants_inventory_low ON product_variants;
    DROP INDEX IF EXISTS webhook_deliveries_open_idx;
    DROP FUNCTION IF EXISTS webhook_inventory_low();
    DROP FUNCTION IF EXISTS record_webhook_events(uuid, text, jsonb, text, text, jsonb);
  `);
}
