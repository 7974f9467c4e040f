import type { Knex } from 'knex';

/**
 * The inventory.low webhook's variant is the admin API's variant (test/integration/webhooks/
 * webhook-topics checks every field): the shipping and taxes migrations gave variants
 * `weightGrams`, `requiresShipping` and `taxClass`, which the trigger that builds the payload
 * (migration 20261125013000) did not know. Same function, three more fields.
 */
const DELIVERY_JOB_OPTIONS_SQL = `'{"attempts": 20, "backoff": {"type": "exponential", "delay": 1000}, "removeOnComplete": {"age": 3600, "count": 10000}}'::jsonb`;

const inventoryLow = (variantFields: boolean) => `
  CREATE OR REPLACE FUNCTION webhook_inventory_low() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    stamp text := 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';
  BEGIN
    IF record_webhook_events(NEW.store_id, 'inventory.low', jsonb_build_array(jsonb_build_object(
         'resourceId', NEW.id,
         'data', jsonb_build_object(
           'id', NEW.id, 'productId', NEW.product_id, 'sku', NEW.sku, 'title', NEW.title, 'optionValues', NEW.option_values,
           'price', NEW.price, 'compareAtPrice', NEW.compare_at_price, 'inventoryQuantity', NEW.inventory_quantity,
           'inventoryPolicy', NEW.inventory_policy, 'available', NEW.inventory_policy = 'continue' OR NEW.inventory_quantity > 0,
           ${variantFields ? "'taxClass', NEW.tax_class, 'weightGrams', NEW.weight_grams, 'requiresShipping', NEW.requires_shipping," : ''}
           'position', NEW.position, 'lowStockThreshold', 5,
           'createdAt', to_char(NEW.created_at AT TIME ZONE 'UTC', stamp), 'updatedAt', to_char(NEW.updated_at AT TIME ZONE 'UTC', stamp)))),
       'webhooks', 'webhook-delivery', ${DELIVERY_JOB_OPTIONS_SQL}) > 0 THEN
      -- Rare (a crossing, with a subscriber): waking the relays at once is worth the NOTIFY.
      PERFORM pg_notify('outbox', '');
    END IF;
    RETURN NULL;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(inventoryLow(true));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(inventoryLow(false));
}
