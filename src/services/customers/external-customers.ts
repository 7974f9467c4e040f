import type { Transaction } from '../../db/transaction.js';

/** An external system's customer as the sync hands it over: checked, lower-cased, deduplicated. */
export interface ExternalCustomerRow {
  externalId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  acceptsMarketing: boolean;
  /** ISO time of the external record's last change. */
  updatedAt: string;
}

/**
 * A page of external customers, by external id. A customer already known by email (created here,
 * or imported) is linked to the external id rather than duplicated; an address linked to a
 * different external id is skipped. Consent only ever goes up: a new customer who accepts
 * marketing is subscribed, an existing `not_subscribed` one too, an unsubscribed one never.
 * Returns how many rows changed.
 */
export async function upsertExternalCustomers(trx: Transaction, storeId: string, rows: ExternalCustomerRow[]): Promise<number> {
  if (!rows.length) return 0;
  const params: any[] = [
    rows.map((r) => r.externalId),
    rows.map((r) => r.email),
    rows.map((r) => r.firstName),
    rows.map((r) => r.lastName),
    rows.map((r) => r.acceptsMarketing),
    rows.map((r) => r.updatedAt)
  ];
  const input = `select * from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::boolean[], ?::timestamptz[])
                   as t(external_id, email, first_name, last_name, accepts_marketing, updated_at)`;
  // Link customers we already have by email (no external id yet).
  await trx.raw(
    `update customers c set external_id = t.external_id from (${input}) t
      where c.store_id = ? and lower(c.email) = t.email and c.external_id is null
        and not exists (select 1 from customers x where x.store_id = ? and x.external_id = t.external_id)`,
    [...params, storeId, storeId]
  );
  const result = await trx.raw(
    `with changed as (
       insert into customers as c (store_id, external_id, email, first_name, last_name, email_marketing,
                                   email_marketing_updated_at, email_marketing_source, source, external_updated_at)
       select ?, t.external_id, t.email, t.first_name, t.last_name,
              case when t.accepts_marketing then 'subscribed' else 'not_subscribed' end,
              case when t.accepts_marketing then now() end,
              case when t.accepts_marketing then 'external_system' end,
              'external_system', t.updated_at
         from (${input}) t
        where not exists (select 1 from customers x
                           where x.store_id = ? and lower(x.email) = t.email
                             and x.external_id is distinct from t.external_id)
       on conflict (store_id, external_id) where external_id is not null do update
         set email = excluded.email, first_name = excluded.first_name, last_name = excluded.last_name,
             email_marketing = case when c.email_marketing = 'not_subscribed' and excluded.email_marketing = 'subscribed'
                                    then 'subscribed' else c.email_marketing end,
             email_marketing_updated_at = case when c.email_marketing = 'not_subscribed' and excluded.email_marketing = 'subscribed'
                                    then now() else c.email_marketing_updated_at end,
             email_marketing_source = case when c.email_marketing = 'not_subscribed' and excluded.email_marketing = 'subscribed'
                                    then 'external_system' else c.email_marketing_source end,
             external_updated_at = excluded.external_updated_at, updated_at = now()
         where c.external_updated_at is distinct from excluded.external_updated_at
       returning c.id
     )
     select count(*) as changed from changed`,
    [storeId, ...params, storeId]
  );
  return Number(result.rows[0].changed);
}
