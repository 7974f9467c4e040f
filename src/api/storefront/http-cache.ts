import { createHash, createHmac } from 'node:crypto';
import type { Lifecycle, Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import { storefrontHttpState, type StorefrontHttpState } from '../../services/catalog/index.js';
import { storefrontHandler, type StorefrontCall } from '../handler.js';
import { storefrontOf } from '../plugins/auth.js';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** The request's ETag and Cache-Control, once `revalidateStorefrontGet` has looked them up. */
    storefrontHttp?: StorefrontHttpTag | null;
  }
}

interface StorefrontHttpTag {
  etag: string;
  cacheControl: string;
}

/**
 * HTTP caching for storefront GETs. The strong ETag is the store's catalog version plus a digest of
 * the request (path and query), so it changes exactly when the store's catalog or settings change.
 * hapi suffixes the tag with the content coding (`-gzip`, `-br`) when it compresses, and strips that
 * suffix when it compares, so each representation keeps its own tag.
 *
 * The token selects the store, so shared caches must key on it: `Vary` names both token headers.
 */
async function httpTagOf(request: Request): Promise<StorefrontHttpTag | null> {
  if (request.app.storefrontHttp !== undefined) return request.app.storefrontHttp;
  const ctx = request.server.app.ctx;
  let state: StorefrontHttpState | null = null;
  try {
    state = await storefrontHttpState(ctx, storefrontOf(request).storeId);
  } catch (error) {
    // Without the version there is no safe ETag: answer uncached rather than not at all.
    ctx.log.warn({ err: { message: (error as Error).message } }, 'storefront catalog version unavailable; answering without an ETag');
  }
  return (request.app.storefrontHttp = state && { etag: `${state.version}.${requestDigest(request)}`, cacheControl: state.cacheControl });
}

const MAX_DIGESTS = 5_000;
const MAX_MEMOISED_URL = 512;

/**
 * The digest is keyed with a secret the processes share (derived from JWT_SECRET): every process
 * issues the same tag for a request, and no client can compute the tag of a request it was never
 * answered, such as one that fails validation (the 304 below skips validation). Digests of recent
 * request URLs are memoised (revalidations and page views repeat the same few), bounded in count
 * and URL length.
 */
interface Digester {
  key: Buffer;
  recent: Map<string, string>;
}
const digesters = new WeakMap<object, Digester>();

function requestDigest(request: Request): string {
  const config = request.server.app.ctx.config;
  let digester = digesters.get(config);
  if (!digester) {
    digester = { key: createHash('sha256').update(`storefront-etag:${config.jwtSecret}`).digest(), recent: new Map() };
    digesters.set(config, digester);
  }
  // The routed path and the raw query: reading `request.url` would make hapi build a WHATWG URL
  // for every request (it parses lazily, without one), a visible share of a cache-off request.
  const raw = request.raw.req.url ?? '';
  const queryAt = raw.indexOf('?');
  const url = `${request.path}?${queryAt === -1 ? '' : raw.slice(queryAt)}`;
  let digest = digester.recent.get(url);
  if (digest === undefined) {
    digest = createHmac('sha256', digester.key).update(url).digest('base64url').slice(0, 16);
    if (url.length <= MAX_MEMOISED_URL) {
      if (digester.recent.size >= MAX_DIGESTS) digester.recent.clear();
      digester.recent.set(url, digest);
    }
  }
  return digest;
}

/**
 * `If-None-Match` with the current tag answers 304 right after authentication: before the query is
 * validated and before the handler, so a revalidation costs no database work and no joi. Skipping
 * validation is safe: the tag digests the request's exact path and query with a server key, and a
 * tag is only issued for a request that passed validation. The cheap `includes` only decides whether to ask hapi,
 * which makes the real comparison (strong, weak, coding suffixes).
 */
export const revalidateStorefrontGet: Lifecycle.Method = async (request, h) => {
  const ifNoneMatch = request.headers['if-none-match'] as string | undefined;
  if (!ifNoneMatch) return h.continue;
  const tag = await httpTagOf(request);
  if (!tag || !ifNoneMatch.includes(tag.etag)) return h.continue;
  const notModified = h.entity({ etag: tag.etag });
  return notModified ? withCacheHeaders(notModified, tag.cacheControl) : h.continue;
};

const cacheableHandlers = new WeakSet<Lifecycle.Method>();

/** Whether a route handler was made by `cacheableStorefrontGet` (storefrontRoute then adds the revalidation). */
export const isCacheableStorefrontGet = (handler: unknown): boolean => typeof handler === 'function' && cacheableHandlers.has(handler as Lifecycle.Method);

/**
 * A storefront GET handler with HTTP caching, written like any `storefrontHandler`
 * (`cacheableStorefrontGet<Params, Query>(({ ctx, storeId, params, query, h }) => …)`): the ETag and
 * Cache-Control on its response, and a 304 here too when the route was declared without
 * `storefrontRoute` (which answers revalidations earlier, in `revalidateStorefrontGet`).
 */
export function cacheableStorefrontGet<P = Record<string, string>, Q = Record<string, unknown>>(
  handle: (call: StorefrontCall<P, undefined, Q>) => Promise<ResponseObject | object>
): Lifecycle.Method {
  const handler = storefrontHandler<P, undefined, Q>(handle) as (request: Request, h: ResponseToolkit) => Promise<ResponseObject | object>;
  const method: Lifecycle.Method = async (request, h) => {
    const tag = await httpTagOf(request);
    if (tag) {
      const notModified = h.entity({ etag: tag.etag });
      if (notModified) return withCacheHeaders(notModified, tag.cacheControl);
    }
    const result = await handler(request, h);
    const response = isResponse(result) ? result : h.response(result);
    return tag ? withCacheHeaders(response, tag.cacheControl) : response;
  };
  cacheableHandlers.add(method);
  return method;
}

const isResponse = (value: unknown): value is ResponseObject =>
  typeof value === 'object' && value !== null && typeof (value as ResponseObject).takeover === 'function' && 'statusCode' in value;

function withCacheHeaders(response: ResponseObject, cacheControl: string): ResponseObject {
  return response.header('cache-control', cacheControl).vary('x-storefront-token').vary('authorization');
}
