import type { ServerRoute } from '@hapi/hapi';
import type { Role } from '../services/roles.js';
import { isCacheableStorefrontGet, revalidateStorefrontGet } from './storefront/http-cache.js';

/** An admin route: JWT auth, x-store-id tenancy, and the roles allowed to call it. */
export function adminRoute(roles: readonly Role[], route: ServerRoute): ServerRoute {
  const options = (route.options ?? {}) as Exclude<ServerRoute['options'], (...args: any[]) => any> & object;
  return {
    ...route,
    options: {
      ...options,
      auth: 'admin',
      tags: ['api', 'admin', ...((options.tags as string[]) ?? [])],
      plugins: { ...(options.plugins ?? {}), tenancy: { roles } }
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
