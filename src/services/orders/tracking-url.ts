import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';

/** `stores.storefront_url` arrives with the store-hardening module; until then links use APP_URL. */
let storefrontUrlColumn: boolean | undefined;

async function hasStorefrontUrl(db: Knex | Knex.Transaction): Promise<boolean> {
  if (storefrontUrlColumn) return true;
  const result = await db.raw(
    `select exists (select 1 from information_schema.columns where table_schema = current_schema() and table_name = 'stores' and column_name = 'storefront_url') as present`
  );
  // Only "present" is remembered: a column never disappears under a running process, but may appear.
  if (result.rows[0]?.present) storefrontUrlColumn = true;
  return Boolean(result.rows[0]?.present);
}

/**
 * Where a shopper follows an order: `<storefrontUrl>/orders/track/<token>` when the store has a
 * storefront URL (the shop renders the page from `GET /public/orders/{token}`), else the API's
 * public tracking route under `APP_URL`.
 */
export async function trackingUrlBase(ctx: AppContext, db: Knex | Knex.Transaction, storeId: string): Promise<string> {
  if (await hasStorefrontUrl(db)) {
    const store = await db('stores').where({ id: storeId }).first('storefrontUrl');
    const base = (store?.storefrontUrl as string | null | undefined)?.replace(/\/+$/, '');
    if (base) return `${base}/orders/track/`;
  }
  return `${ctx.config.appUrl}/api/v1/public/orders/`;
}

export const trackingUrlFor = (base: string, token: string) => `${base}${encodeURIComponent(token)}`;
