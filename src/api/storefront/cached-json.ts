import type { ResponseToolkit } from '@hapi/hapi';

const serialized = new WeakMap<object, string>();

/**
 * The envelope JSON for a (cached) service result, serialised once per result object: a cache hit
 * returns the very same object, so it also skips JSON.stringify. Same bytes as the envelope plugin.
 */
export function envelopeJson(h: ResponseToolkit, result: object, render: () => { data: unknown; meta: Record<string, unknown> }) {
  let body = serialized.get(result);
  if (body === undefined) {
    const { data, meta } = render();
    body = JSON.stringify({ success: true, data, meta });
    serialized.set(result, body);
  }
  return h.response(body).type('application/json; charset=utf-8');
}
