import { connectLink, disconnectLink, getLink, previewLink, requestSync, type LinkRequest } from '../../services/external-system/index.js';
import { ADMINS } from '../../platform/roles.js';
import { withMeta } from '../plugins/envelope.js';
import { tenantOf } from '../plugins/auth.js';
import { adminRoute } from '../route-helpers.js';
import { connectPayload, connectResponse, linkResponse, previewPayload, previewResponse, syncResponse } from './schemas.js';

export const previewRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/external-system/preview',
  options: {
    plugins: { openapi: { errors: [502] } },
    description: 'Check a baseUrl + apiKey against the external system: { account, counts }; nothing is saved; 502 upstream_failed with the reason',
    tags: ['external-system'],
    validate: { payload: previewPayload },
    response: { status: { 200: previewResponse } },
    handler: async (request) => previewLink(request.server.app.ctx, request.payload as LinkRequest)
  }
});

export const connectRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/external-system/connect',
  options: {
    plugins: { openapi: { errors: [502] } },
    description: 'Link the store (API key encrypted at rest); the webhookSecret is returned only here; the first backfill is queued',
    tags: ['external-system'],
    validate: { payload: connectPayload },
    response: { status: { 200: connectResponse } },
    handler: async (request) => {
      const result = await connectLink(request.server.app.ctx, tenantOf(request), request.payload as LinkRequest);
      return withMeta(result, { job: { id: result.job.id, status: result.job.status } });
    }
  }
});

export const getLinkRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/external-system',
  options: {
    description: 'The external-system link (never the key or the webhook secret); 404 before the store was ever connected',
    tags: ['external-system'],
    plugins: { openapi: { errors: [404] } },
    response: { status: { 200: linkResponse } },
    handler: async (request) => getLink(request.server.app.ctx, tenantOf(request).storeId)
  }
});

export const disconnectRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/external-system/disconnect',
  options: {
    description: 'Unlink the external system; synced products and customers stay; 404 before the store was ever connected',
    tags: ['external-system'],
    plugins: { openapi: { errors: [404] } },
    response: { status: { 200: linkResponse } },
    handler: async (request) => disconnectLink(request.server.app.ctx, tenantOf(request).storeId)
  }
});

export const syncRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/external-system/sync',
  options: {
    description:
      'Queue a backfill now: 202 { job } (a backfill already queued or running is returned instead); 404 before the store was ever connected, 409 once disconnected',
    tags: ['external-system'],
    plugins: { openapi: { errors: [404, 409] } },
    response: { status: { 202: syncResponse } },
    handler: async (request, h) => {
      const tenant = tenantOf(request);
      const result = await requestSync(request.server.app.ctx, tenant.storeId, tenant.userId);
      return h.response(withMeta(result, { job: { id: result.job.id, status: result.job.status } })).code(202);
    }
  }
});
