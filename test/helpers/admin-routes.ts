import type { TestApp } from './app.js';

/** Stands in for every path parameter: no store has it, so a route that reaches its lookup answers 404. */
export const FAKE_ID = '00000000-0000-4000-8000-000000000000';

/** An admin route as the role and scope matrices walk it. */
export interface AdminRoute {
  method: string;
  /** As registered, `/api/v1/admin/…` (the OpenAPI document's key). */
  fullPath: string;
  /** Without `/api/v1`, as the matrices' rules read it. */
  path: string;
  /** The roles the route declares (its tenancy plugin settings). */
  declared: string[] | undefined;
  /** The content types its payload accepts (empty: JSON or none). */
  accepts: string[];
}

/** Every admin route registered on the app: a route added later is walked the day it is added. */
export function adminRoutes(app: TestApp): AdminRoute[] {
  return app.server
    .table()
    .filter((route) => route.path.startsWith('/api/v1/admin/'))
    .map((route) => ({
      method: route.method.toUpperCase(),
      fullPath: route.path,
      path: route.path.slice('/api/v1'.length),
      declared: (route.settings.plugins as { tenancy?: { roles?: string[] } } | undefined)?.tenancy?.roles,
      accepts: [(route.settings.payload as { allow?: string | string[] } | undefined)?.allow ?? []].flat() as string[]
    }));
}

/** The route's path with every parameter filled with FAKE_ID. */
export const urlOf = (route: AdminRoute) => route.path.replace(/\{[^}]+\}/g, FAKE_ID);

const BOUNDARY = 'admin-routes-boundary';

/** A body of a type the route parses, so its answer is about the caller's rights, not the content type. */
export function bodyFor(accepts: string[]): { payload?: string; headers?: Record<string, string> } {
  if (!accepts.length || accepts.includes('application/json')) return {};
  const plain = accepts.find((type) => type !== 'multipart/form-data');
  if (plain) return { payload: '', headers: { 'content-type': plain } };
  return {
    payload: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="alt"\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }
  };
}
