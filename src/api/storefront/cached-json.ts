import type { ResponseToolkit } from '@hapi/hapi';
import type { AppContext } from '../../context.js';
import { cachedStorefrontBody } from '../../services/catalog/index.js';
import { jsonResponse } from '../json-body.js';

/**
 * A storefront catalog response from the per-process byte cache (storefront-cache.ts): on a miss
 * `render` runs and returns the envelope's JSON text; a hit sends the stored bytes as they are (no
 * object, no stringify), compressed at most once per cached body and coding. Takes the handler's
 * call (`{ ctx, storeId, h }`).
 */
export async function cachedEnvelope(call: { ctx: AppContext; storeId: string; h: ResponseToolkit }, key: string, render: () => Promise<string>) {
  const body = await cachedStorefrontBody(call.ctx, call.storeId, key, async () => Buffer.from(await render()));
  return jsonResponse(call.h, body);
}
