import type { ResponseToolkit } from '@hapi/hapi';
import { successBody } from '../plugins/envelope.js';

const serialized = new WeakMap<object, Buffer>();

/**
 * The envelope JSON for a (cached) service result, serialised once per result object: a cache hit
 * returns the very same object, so it also skips JSON.stringify and the UTF-8 encoding (the bytes are
 * kept as a Buffer).
 */
export function envelopeJson(h: ResponseToolkit, result: object, render: () => { data: unknown; meta: Record<string, unknown> }) {
  let body = serialized.get(result);
  if (body === undefined) {
    const { data, meta } = render();
    body = Buffer.from(JSON.stringify(successBody(data, meta)));
    serialized.set(result, body);
  }
  return h.response(body).type('application/json; charset=utf-8');
}
