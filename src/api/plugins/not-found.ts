import type { Plugin, Request, Server } from '@hapi/hapi';
import { AppError, notFound } from '../../errors.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const CATCH_ALL = '/{any*}';

function routeFor(server: Server, method: string, path: string): boolean | null {
  try {
    const match = server.match(method as 'GET', path.length > 1 ? path.replace(/\/+$/, '') : path);
    return Boolean(match && match.path !== CATCH_ALL);
  } catch {
    // A path hapi cannot decode (bad percent-encoding): hapi's router answers it (400).
    return null;
  }
}

/** 404 for an unknown path, 405 with `Allow` for a known path with the wrong method. */
function unrouted(server: Server, request: Request): AppError {
  const allowed = METHODS.filter((method) => routeFor(server, method, request.path));
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
    server.ext('onRequest', (request, h) => {
      if (routeFor(server, request.method, request.path) !== false) return h.continue;
      throw unrouted(server, request);
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
