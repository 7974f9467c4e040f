import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { session } from './session';

/** Where a 401 sends the operator: set by the router (sign-in, then back to where they were). */
let onUnauthenticated: () => void = () => undefined;
export function setUnauthenticatedHandler(handler: () => void) {
  onUnauthenticated = handler;
}

/** Every call carries the access token and, for /admin routes, the chosen store. */
const auth: Middleware = {
  onRequest({ request }) {
    const token = session.token();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    const storeId = session.storeId();
    if (storeId && new URL(request.url).pathname.startsWith('/api/v1/admin/')) request.headers.set('x-store-id', storeId);
    return request;
  },
  onResponse({ request, response }) {
    const path = new URL(request.url).pathname;
    if (response.status === 401 && !path.startsWith('/api/v1/auth/login')) {
      session.signOut();
      onUnauthenticated();
    }
    return response;
  }
};

/**
 * The typed client: paths, bodies and answers come from the service's OpenAPI document. It speaks
 * JSON only (the pages some routes answer a browser, text/html, are not for it; files and event
 * streams go through a raw fetch), so only JSON answers type `data`.
 */
export const api = createClient<paths, 'application/json'>({ baseUrl: location.origin });
api.use(auth);

/** The headers a raw fetch (uploads, downloads, event streams) needs. */
export function authHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const token = session.token();
  const storeId = session.storeId();
  if (token) headers.authorization = `Bearer ${token}`;
  if (storeId) headers['x-store-id'] = storeId;
  return headers;
}
