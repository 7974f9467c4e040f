import type { Request, ResponseToolkit } from '@hapi/hapi';
import { cachedStorefrontBody } from '../../services/catalog/storefront-cache.js';
import { storefrontOf } from '../plugins/auth.js';
import { successBody } from '../plugins/envelope.js';

/**
 * A storefront catalog response from the per-process byte cache: on a miss `load` runs and its
 * envelope is serialised once; a hit sends the stored bytes as they are (no object, no stringify).
 */
export async function cachedEnvelope(
  request: Request,
  h: ResponseToolkit,
  key: string,
  load: () => Promise<{ data: unknown; meta: Record<string, unknown> }>
) {
  const body = await cachedStorefrontBody(request.server.app.ctx, storefrontOf(request).storeId, key, async () => {
    const { data, meta } = await load();
    return Buffer.from(JSON.stringify(successBody(data, meta)));
  });
  return h.response(body).type('application/json; charset=utf-8');
}

/** The envelope JSON for a result that is not catalog-cached (its own cache keeps the object). */
export function envelopeJson(h: ResponseToolkit, result: object, render: () => { data: unknown; meta: Record<string, unknown> }) {
  const { data, meta } = render();
  return h.response(Buffer.from(JSON.stringify(successBody(data, meta)))).type('application/json; charset=utf-8');
}
