import type { Knex } from 'knex';
import type { AppContext } from '../../context.js';

/**
 * Where a shopper follows an order: `<storefrontUrl>/orders/track/<token>` when the store has a
 * storefront URL (the shop renders the page from `GET /public/orders/{token}`), else the API's
 * public tracking route under `APP_URL`.
 */
export async function trackingUrlBase(ctx: AppContext, db: Knex | Knex.Transaction, storeId: string): Promise<string> {
  const store = await db('stores').where({ id: storeId }).first('storefrontUrl');
  const base = (store?.storefrontUrl as string | null | undefined)?.replace(/\/+$/, '');
  if (base) return `${base}/orders/track/`;
  return `${ctx.config.appUrl}/api/v1/public/orders/`;
}

export const trackingUrlFor = (base: string, token: string) => `${base}${encodeURIComponent(token)}`;
