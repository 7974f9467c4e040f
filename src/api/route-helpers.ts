import type { Lifecycle, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { Role } from '../services/roles.js';
import { apiKeyScopeFor } from './api-key-scopes.js';
import { auditedHandler } from './audit-route.js';
import { isCacheableStorefrontGet, revalidateStorefrontGet } from './storefront/http-cache.js';

/**
 * An admin route: JWT auth with x-store-id tenancy and the roles allowed to call it, or an admin
 * API key (tried first: a `swk_` bearer is not a JWT) holding the scope src/api/api-key-scopes.ts
 * names for it (none: no key may call it).
 */
export function adminRoute(roles: readonly Role[], route: ServerRoute): ServerRoute {
  const options = (route.options ?? {}) as Exclude<ServerRoute['options'], (...args: any[]) => any> & object;
  const scope = apiKeyScopeFor(String(route.method), route.path);
  return {
    ...route,
    options: {
      ...options,
      // Every admin handler runs in its audit request (api/audit-route.ts).
      ...(typeof options.handler === 'function' ? { handler: auditedHandler(options.handler as Lifecycle.Method) } : {}),
      auth: { strategies: ['api-key', 'admin'] },
      tags: ['api', 'admin', ...((options.tags as string[]) ?? [])],
      plugins: { ...(options.plugins ?? {}), tenancy: { roles }, apiKey: { scope } }
    }
  };
}

/**
 * A storefront route: authenticated by a storefront token, which selects the store. A GET whose
 * handler is `cacheableStorefrontGet` answers a matching `If-None-Match` right after
 * authentication (`revalidateStorefrontGet`), before validation and the handler.
 */
export function storefrontRoute(route: ServerRoute): ServerRoute {
  const options = (route.options ?? {}) as Exclude<ServerRoute['options'], (...args: any[]) => any> & object;
  const cacheable = isCacheableStorefrontGet(options.handler);
  if (cacheable && options.ext?.onPostAuth) throw new Error(`${route.path}: a cacheable storefront GET answers revalidations in onPostAuth; it cannot declare its own`);
  const revalidation = cacheable ? { ext: { ...options.ext, onPostAuth: { method: revalidateStorefrontGet } } } : {};
  return { ...route, options: { ...options, ...revalidation, auth: 'storefront', tags: ['api', 'storefront', ...((options.tags as string[]) ?? [])] } };
}

/** A route anyone may call. */
export function publicRoute(route: ServerRoute): ServerRoute {
  const options = (route.options ?? {}) as Exclude<ServerRoute['options'], (...args: any[]) => any> & object;
  return { ...route, options: { ...options, auth: false, tags: ['api', ...((options.tags as string[]) ?? [])] } };
}

/** A route for a signed-in user, not tied to a store (no x-store-id). */
export function userRoute(route: ServerRoute): ServerRoute {
  const options = (route.options ?? {}) as Exclude<ServerRoute['options'], (...args: any[]) => any> & object;
  return { ...route, options: { ...options, auth: 'admin', tags: ['api', ...((options.tags as string[]) ?? [])] } };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A route that writes but declares no body schema takes no body: `{}` or none, and any key is
 * refused (422) like every other unknown key. Routes with their own payload handling (raw
 * webhooks, CSV and multipart uploads, form posts) are left as they are.
 */
export function refuseUndeclaredBody(route: ServerRoute): ServerRoute {
  const options = (route.options ?? {}) as Exclude<ServerRoute['options'], (...args: any[]) => any> & object;
  const methods = [route.method].flat().map((method) => String(method).toUpperCase());
  if (!methods.some((method) => BODY_METHODS.has(method)) || options.payload || options.validate?.payload) return route;
  return { ...route, options: { ...options, validate: { ...options.validate, payload: NO_BODY } } };
}

export const NO_BODY = Joi.object({}).allow(null).description('no body');
