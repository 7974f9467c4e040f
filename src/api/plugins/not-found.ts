import type { Plugin, Request, Server } from '@hapi/hapi';
import { AppError, notFound } from '../../errors.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const CATCH_ALL = '/{any*}';

const normalised = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path);

/** The path of the route that `method` + `path` reaches (not the catch-all), '' for none, null for an undecodable path. */
function routePathFor(server: Server, method: string, path: string): string | null {
  try {
    const match = server.match(method as 'GET', normalised(path));
    return match && match.path !== CATCH_ALL ? match.path : '';
  } catch {
    // A path hapi cannot decode (bad percent-encoding): hapi's router answers it (400).
    return null;
  }
}

function routeFor(server: Server, method: string, path: string): boolean | null {
  const routePath = routePathFor(server, method, path);
  return routePath === null ? null : routePath !== '';
}

/**
 * Paths routed literally (no parameters), e.g. `POST /admin/customers/export`. `GET` of such a path
 * would otherwise reach `GET /admin/customers/{customerId}` and answer 422 for a bad id, where the
 * path is known and only the method is wrong.
 */
function literalPaths(server: Server): Set<string> {
  return new Set(server.table().filter((route) => !route.path.includes('{')).map((route) => route.path));
}

/** 404 for an unknown path, 405 with `Allow` for a known path with the wrong method. */
function unrouted(server: Server, request: Request, literal?: Set<string>): AppError {
  const path = normalised(request.path);
  const exact = literal?.has(path) ?? false;
  const allowed = METHODS.filter((method) => {
    const routePath = routePathFor(server, method, request.path);
    return exact ? routePath === path : Boolean(routePath);
  });
  if (allowed.length) {
    return new AppError(405, 'method_not_allowed', `Method ${request.method.toUpperCase()} is not allowed here`, undefined, { Allow: allowed.join(', ') });
  }
  return notFound('Route');
}

/**
 * Unknown paths answer 404 and known paths with the wrong method 405, whatever the body: decided at
 * `onRequest`, before hapi would read the payload (which would answer 400/413/415 for a bad body).
 */
export const notFoundPlugin: Plugin<void> = {
  name: 'shopwright-not-found',
  register(server) {
    let literal: Set<string> | null = null;
    server.ext('onRequest', (request, h) => {
      const routePath = routePathFor(server, request.method, request.path);
      if (routePath === '') throw unrouted(server, request);
      if (routePath?.includes('{') && (literal ??= literalPaths(server)).has(normalised(request.path))) {
        throw unrouted(server, request, literal);
      }
      return h.continue;
    });
    // Still routed, so that `server.match` has a fallback and inject/HEAD behave as for any path.
    server.route({
      method: '*',
      path: CATCH_ALL,
      options: {
        auth: false,
        handler: (request) => {
          throw unrouted(server, request);
        }
      }
    });
  }
};
