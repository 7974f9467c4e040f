import type { Plugin } from '@hapi/hapi';
import { AppError, notFound } from '../../errors.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Unknown paths answer 404; a known path with the wrong method answers 405 with `Allow`. */
export const notFoundPlugin: Plugin<void> = {
  name: 'shopwright-not-found',
  register(server) {
    server.route({
      method: '*',
      path: '/{any*}',
      options: {
        auth: false,
        handler: (request) => {
          const allowed = METHODS.filter((method) => {
            const match = server.match(method as 'GET', request.path);
            return match && match.path !== '/{any*}';
          });
          if (allowed.length) {
            throw new AppError(405, 'method_not_allowed', `Method ${request.method.toUpperCase()} is not allowed here`, undefined, {
              Allow: allowed.join(', ')
            });
          }
          throw notFound('Route');
        }
      }
    });
  }
};
