import type { ResponseToolkit } from '@hapi/hapi';
import { compressBody, COMPRESSION_MIN_BYTES } from '../compression.js';


interface Bodies {
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

const serialized = new WeakMap<object, Bodies>();

/**
 * The envelope JSON (`render` writes it) for a (cached) service result, serialised once per result object: a cache hit
 * returns the very same object, so it also skips JSON.stringify and the UTF-8 encoding (the bytes are
 * kept as a Buffer), and compression: each coding is computed once per result, on first request.
 */
export function envelopeJson(h: ResponseToolkit, result: object, render: () => string) {
  let bodies = serialized.get(result);
  if (bodies === undefined) {
    bodies = { identity: Buffer.from(render()) };
    serialized.set(result, bodies);
  }
  return jsonResponse(h, bodies);
}

/** A JSON body already in memory, compressed in one call when the client accepts br or gzip. */
export function jsonResponse(h: ResponseToolkit, bodies: Bodies) {
  const encoding = h.request.info.acceptEncoding;
  if (bodies.identity.length >= COMPRESSION_MIN_BYTES && (encoding === 'br' || encoding === 'gzip')) {
    const compressed = (bodies[encoding] ??= compressBody(encoding, bodies.identity));
    return h.response(compressed).type('application/json; charset=utf-8').compressed(encoding).vary('accept-encoding');
  }
  const response = h.response(bodies.identity).type('application/json; charset=utf-8');
  return bodies.identity.length >= COMPRESSION_MIN_BYTES ? response.vary('accept-encoding') : response;
}
