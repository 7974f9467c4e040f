import { publicHandler } from '../handler.js';
import { publicRoute } from '../route-helpers.js';
import { buildOpenApiDocument } from './build-document.js';

let cached: object | null = null;

export const getOpenApi = publicRoute({
  method: 'GET',
  path: '/openapi.json',
  options: {
    description: 'OpenAPI 3 document generated from the route definitions',
    tags: ['docs'],
    plugins: {
      openapi: {
        success: { status: 200, description: 'This OpenAPI 3 document (not in the envelope)', content: { 'application/json': { schema: { type: 'object' } } } }
      }
    },
    // The raw document, not the envelope: tools that read OpenAPI expect it at the top level.
    handler: publicHandler(({ request, h }) => {
      cached ??= buildOpenApiDocument(request.server);
      return h.response(JSON.stringify(cached)).type('application/json');
    })
  }
});
