import type { Knex } from 'knex';

/**
 * A campaign's unsubscribes are recorded on its recipient row, set once, when the unsubscribe link
 * (or List-Unsubscribe target) of that campaign's email is used. Before, they were inferred from
 * the customer's current state (credited to the last campaign received, and gone again after a
 * re-subscribe). A nullable column without a default changes no existing row.
 *
 * Backfill: rows the old inference credited (customer still unsubscribed, this the last campaign
 * sent before it) keep their count, stamped with the customer's consent time.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE campaign_recipients ADD COLUMN unsubscribed_at timestamptz;

    UPDATE campaign_recipients r
       SET unsubscribed_at = cu.email_marketing_updated_at
      FROM customers cu, campaigns k
     WHERE cu.id = r.customer_id AND k.id = r.campaign_id
       AND r.status = 'sent' AND cu.email_marketing = 'unsubscribed' AND cu.email_marketing_updated_at >= r.sent_at
       AND NOT EXISTS (
         SELECT 1 FROM campaigns k2
           JOIN campaign_recipients r2 ON r2.campaign_id = k2.id AND r2.customer_id = r.customer_id
          WHERE k2.store_id = k.store_id AND k2.id <> r.campaign_id AND r2.status = 'sent'
            AND r2.sent_at > r.sent_at AND r2.sent_at <= cu.email_marketing_updated_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE campaign_recipients DROP COLUMN IF EXISTS unsubscribed_at;`);
}
