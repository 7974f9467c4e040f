import type { ResponseToolkit } from '@hapi/hapi';
import type { CachedBody } from '../services/catalog/index.js';
import { compressBody, COMPRESSION_MIN_BYTES } from './compression.js';

const serialized = new WeakMap<object, CachedBody>();

/**
 * The envelope JSON for a result shared as an object (the storefront store from its cache, the
 * dashboard shared by concurrent requests), serialised and compressed once per result object.
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
export function jsonResponse(h: ResponseToolkit, body: CachedBody) {
  const encoding = h.request.info.acceptEncoding;
  if (body.identity.length >= COMPRESSION_MIN_BYTES && (encoding === 'br' || encoding === 'gzip')) {
    const compressed = (body[encoding] ??= compressBody(encoding, body.identity));
    return h.response(compressed).type('application/json; charset=utf-8').compressed(encoding).vary('accept-encoding');
  }
  const response = h.response(body.identity).type('application/json; charset=utf-8');
  return body.identity.length >= COMPRESSION_MIN_BYTES ? response.vary('accept-encoding') : response;
}
