import type { Knex } from 'knex';

/**
 * `record_webhook_events` writes the first attempts of the deliveries it creates as batch jobs
 * (`{ deliveries: [{ deliveryId, subscriptionId }] }`, up to 25 each: DELIVERY_BATCH_MAX in
 * src/jobs/webhook-delivery.ts) instead of one job per delivery: an event's fan-out to a store's
 * subscriptions (20 at most) is one job, and a bulk write's events go 25 deliveries to a job. On the
 * PostgreSQL queue BullMQ's own work per job (the add, the claim, the completion and their event
 * rows) cost more CPU than the delivery it carried. A lone delivery keeps the one-delivery payload.
 * Same order as before: event by event, each to every subscriber (by id) in turn.
 */
/** Both versions' first part: the subscribers, the events, one delivery per subscriber and event. */
const EVENTS_AND_DELIVERIES = `
    CREATE OR REPLACE FUNCTION record_webhook_events(p_store uuid, p_topic text, p_events jsonb, p_queue text, p_job text, p_options jsonb) RETURNS integer
    LANGUAGE plpgsql AS $$
    DECLARE
      subscribers uuid[];
      queued integer;
    BEGIN
      SELECT array_agg(id ORDER BY id) INTO subscribers
        FROM webhook_subscriptions WHERE store_id = p_store AND enabled AND p_topic = ANY(topics);
      IF subscribers IS NULL OR jsonb_array_length(p_events) = 0 THEN RETURN 0; END IF;
      WITH ev AS (
        INSERT INTO webhook_events (store_id, topic, resource_id, data)
        SELECT p_store, p_topic, (e.value->>'resourceId')::uuid, e.value->'data' FROM jsonb_array_elements(p_events) WITH ORDINALITY e ORDER BY e.ordinality
        RETURNING id, seq
      ), d AS (
        INSERT INTO webhook_deliveries (subscription_id, event_id, store_id)
        SELECT s.id, ev.id, p_store FROM ev CROSS JOIN unnest(subscribers) WITH ORDINALITY AS s(id, n) ORDER BY ev.seq, s.n
`;

const BATCHED = `${EVENTS_AND_DELIVERIES}        RETURNING id, subscription_id, event_id
      ), n AS (
        SELECT d.id, d.subscription_id, row_number() OVER (ORDER BY ev.seq, d.subscription_id) - 1 AS i
          FROM d JOIN ev ON ev.id = d.event_id
      ), b AS (
        SELECT i / 25 AS batch, count(*) AS size,
               jsonb_agg(jsonb_build_object('deliveryId', id, 'subscriptionId', subscription_id) ORDER BY i) AS deliveries
          FROM n GROUP BY i / 25
      ), o AS (
        INSERT INTO outbox (id, queue, name, job_id, payload, options)
        SELECT j.id, p_queue, p_job, j.id::text,
               CASE WHEN b.size = 1 THEN b.deliveries -> 0 ELSE jsonb_build_object('deliveries', b.deliveries) END, p_options
          FROM b CROSS JOIN LATERAL (SELECT gen_random_uuid() AS id, b.batch AS batch) j
         ORDER BY b.batch
        RETURNING 1
      )
      SELECT count(*) INTO queued FROM n;
      RETURN queued;
    END $$;`;

const ONE_BY_ONE = `${EVENTS_AND_DELIVERIES}        RETURNING id, subscription_id
      ), j AS (
        SELECT gen_random_uuid() AS id, d.id AS delivery_id, d.subscription_id FROM d
      ), o AS (
        INSERT INTO outbox (id, queue, name, job_id, payload, options)
        SELECT j.id, p_queue, p_job, j.id::text, jsonb_build_object('deliveryId', j.delivery_id, 'subscriptionId', j.subscription_id), p_options FROM j
        RETURNING 1
      )
      SELECT count(*) INTO queued FROM o;
      RETURN queued;
    END $$;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(BATCHED);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(ONE_BY_ONE);
}
