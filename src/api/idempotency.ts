import type { Lifecycle, Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { validationFailed } from '../errors.js';
import {
  abandonIdempotentRequest,
  beginIdempotentRequest,
  completeIdempotentRequest,
  requestHash
} from '../platform/idempotency/idempotency.js';
import { Enveloped, successBody } from './plugins/envelope.js';

declare module '@hapi/hapi' {
  interface PluginsStates {
    idempotency?: { storeId: string; key: string };
  }
}

const HEADER = 'idempotency-key';

/** The store a request acts for: the admin tenant or the storefront token's store. */
function storeOf(request: Request): string | null {
  if (request.app.tenant) return request.app.tenant.storeId;
  const credentials = request.auth.credentials as { storeId?: string } | null;
  return credentials?.storeId ?? null;
}

const onPreHandler: Lifecycle.Method = async (request: Request, h: ResponseToolkit) => {
  const raw = request.headers[HEADER];
  if (raw === undefined) return h.continue;
  const key = String(raw).trim();
  if (!key || key.length > 255) throw validationFailed([{ path: 'Idempotency-Key', message: 'must be 1 to 255 characters' }]);
  const storeId = storeOf(request);
  if (!storeId) return h.continue;
  const ctx = request.server.app.ctx;
  const start = await beginIdempotentRequest(ctx, storeId, key, requestHash(request.method, request.path, request.payload));
  if (start.kind === 'replay') {
    return h.response(start.response as object).code(start.statusCode).header('idempotent-replayed', 'true').takeover();
  }
  request.plugins.idempotency = { storeId, key };
  return h.continue;
};

const onPreResponse: Lifecycle.Method = async (request: Request, h: ResponseToolkit) => {
  const pending = request.plugins.idempotency;
  if (!pending) return h.continue;
  const ctx = request.server.app.ctx;
  const response = request.response;
  if (response instanceof Error || response.statusCode >= 300) {
    await abandonIdempotentRequest(ctx, pending.storeId, pending.key);
    return h.continue;
  }
  const source = (response as { source: unknown }).source;
  const body = source instanceof Enveloped ? successBody(source.data, source.meta) : source && typeof source === 'object' && 'success' in source ? source : successBody(source);
  await completeIdempotentRequest(ctx, pending.storeId, pending.key, response.statusCode, JSON.parse(JSON.stringify(body)));
  return h.continue;
};

/**
 * Makes a POST route honour `Idempotency-Key` (see platform/idempotency). Wrap the route:
 * `idempotent(adminRoute(ROLES, { ... }))`. Any route group may use it (campaigns, fulfilments, orders).
 */
export function idempotent(route: ServerRoute): ServerRoute {
  const options = (route.options ?? {}) as Exclude<ServerRoute['options'], (...args: any[]) => any> & object;
  const description = `${options.description ?? ''} (honours Idempotency-Key: a repeat with the same key and body within 24 h replays the first response)`.trim();
  return {
    ...route,
    options: {
      ...options,
      description,
      // 409 while the first request with the same key is still being answered.
      plugins: { ...options.plugins, openapi: { ...options.plugins?.openapi, errors: [...new Set([...(options.plugins?.openapi?.errors ?? []), 409])] } },
      ext: {
        ...(options.ext ?? {}),
        onPreHandler: { method: onPreHandler },
        onPreResponse: { method: onPreResponse }
      }
    }
  };
}
