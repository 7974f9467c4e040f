import type { Request, ResponseToolkit } from '@hapi/hapi';
import { cachedStorefrontBody, type CachedBody } from '../../services/catalog/index.js';
import { jsonResponse } from '../json-body.js';
import { storefrontOf } from '../plugins/auth.js';

/**
 * A storefront catalog response from the per-process byte cache (storefront-cache.ts): on a miss
 * `render` runs and returns the envelope's JSON text; a hit sends the stored bytes as they are (no
 * object, no stringify), compressed at most once per cached body and coding.
 */
export async function cachedEnvelope(request: Request, h: ResponseToolkit, key: string, render: () => Promise<string>) {
  const body = await cachedStorefrontBody(request.server.app.ctx, storefrontOf(request).storeId, key, async () => Buffer.from(await render()));
  return jsonResponse(h, body);
}
