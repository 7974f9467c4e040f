import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';

/** `stores.storefront_url` arrives with the store-hardening module; until then links use APP_URL. */
let storefrontUrlColumn = false;
let checkedAt = 0;
const RECHECK_MS = 30_000;

async function hasStorefrontUrl(db: Knex | Knex.Transaction): Promise<boolean> {
  // "Present" is remembered for good (a column never disappears under a running process); "absent"
  // is re-checked every 30 s, since a newer release may add it while this process runs.
  if (storefrontUrlColumn || Date.now() - checkedAt < RECHECK_MS) return storefrontUrlColumn;
  const result = await db.raw(
    `select exists (select 1 from pg_attribute where attrelid = 'stores'::regclass and attname = 'storefront_url' and not attisdropped) as present`
  );
  storefrontUrlColumn = Boolean(result.rows[0]?.present);
  checkedAt = Date.now();
  return storefrontUrlColumn;
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
