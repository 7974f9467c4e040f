import type { Request, ResponseToolkit } from '@hapi/hapi';
import { cachedStorefrontBody, type CachedBody } from '../../services/catalog/storefront-cache.js';
import { compressBody, COMPRESSION_MIN_BYTES } from '../compression.js';
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

const serialized = new WeakMap<object, CachedBody>();

/**
 * The envelope JSON for a result cached elsewhere as an object (the storefront store), serialised
 * and compressed once per result object: a cache hit returns the very same object.
 */
export function envelopeJson(h: ResponseToolkit, result: object, render: () => string) {
  let body = serialized.get(result);
  if (body === undefined) {
    body = { identity: Buffer.from(render()) };
    serialized.set(result, body);
  }
  return jsonResponse(h, body);
}

/** A JSON body already in memory, compressed (once per body and coding) when the client accepts br or gzip. */
function jsonResponse(h: ResponseToolkit, body: CachedBody) {
  const encoding = h.request.info.acceptEncoding;
  if (body.identity.length >= COMPRESSION_MIN_BYTES && (encoding === 'br' || encoding === 'gzip')) {
    const compressed = (body[encoding] ??= compressBody(encoding, body.identity));
    return h.response(compressed).type('application/json; charset=utf-8').compressed(encoding).vary('accept-encoding');
  }
  const response = h.response(body.identity).type('application/json; charset=utf-8');
  return body.identity.length >= COMPRESSION_MIN_BYTES ? response.vary('accept-encoding') : response;
}
