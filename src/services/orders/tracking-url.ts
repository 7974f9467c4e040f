import type { AppContext } from '../../context.js';
import { cachedStore } from '../stores/index.js';

/**
 * Where a shopper follows an order: `<storefrontUrl>/orders/track/<token>` when the store has a
 * storefront URL (the shop renders the page from `GET /public/orders/{token}`), else the API's
 * public tracking route under `APP_URL`.
 */
export async function trackingUrlBase(ctx: AppContext, storeId: string): Promise<string> {
  const store = await cachedStore(ctx, storeId);
  return baseFor(ctx, store.storefrontUrl);
}

/** What an order email needs of its store: the name and the tracking link base (the cached store row). */
export async function orderMailStore(ctx: AppContext, storeId: string): Promise<{ name: string; trackingBase: string }> {
  const store = await cachedStore(ctx, storeId);
  return { name: store.name, trackingBase: baseFor(ctx, store.storefrontUrl) };
}

function baseFor(ctx: AppContext, storefrontUrl: string | null | undefined): string {
  const base = storefrontUrl?.replace(/\/+$/, '');
  return base ? `${base}/orders/track/` : `${ctx.config.appUrl}/api/v1/public/orders/`;
}

export const trackingUrlFor = (base: string, token: string) => `${base}${encodeURIComponent(token)}`;
