import { createHash } from 'node:crypto';
import type { Lifecycle, Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import { storefrontHttpState } from '../../services/catalog/catalog-version.js';
import { storefrontOf } from '../plugins/auth.js';

/**
 * Wraps a storefront GET handler with HTTP caching. The strong ETag is the store's catalog version
 * plus a digest of the request (path and query), so it changes exactly when the store's catalog or
 * settings change. `If-None-Match` with the current tag answers 304 before the handler runs: no
 * database work at all. hapi suffixes the tag with the content coding (`-gzip`, `-br`) when it
 * compresses, and strips that suffix when it compares, so each representation keeps its own tag.
 *
 * The token selects the store, so shared caches must key on it: `Vary` names both token headers.
 */
export function cacheableStorefrontGet(handler: (request: Request, h: ResponseToolkit) => Promise<ResponseObject | object>): Lifecycle.Method {
  return async (request, h) => {
    const ctx = request.server.app.ctx;
    let state: Awaited<ReturnType<typeof storefrontHttpState>> | null = null;
    try {
      state = await storefrontHttpState(ctx, storefrontOf(request).storeId);
    } catch (error) {
      // Without the version there is no safe ETag: answer uncached rather than not at all.
      ctx.log.warn({ err: { message: (error as Error).message } }, 'storefront catalog version unavailable; answering without an ETag');
    }
    if (state) {
      const digest = createHash('sha1').update(request.url.pathname).update('?').update(request.url.search).digest('base64url').slice(0, 16);
      const notModified = h.entity({ etag: `${state.version}.${digest}` });
      if (notModified) return withCacheHeaders(notModified, state.cacheControl);
    }
    const result = await handler(request, h);
    const response = isResponse(result) ? result : h.response(result);
    return state ? withCacheHeaders(response, state.cacheControl) : response;
  };
}

const isResponse = (value: unknown): value is ResponseObject =>
  typeof value === 'object' && value !== null && typeof (value as ResponseObject).takeover === 'function' && 'statusCode' in value;

function withCacheHeaders(response: ResponseObject, cacheControl: string): ResponseObject {
  return response.header('cache-control', cacheControl).vary('x-storefront-token').vary('authorization');
}
