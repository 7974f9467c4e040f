import { connectLink, disconnectLink, getLink, previewLink, requestSync, type LinkRequest } from '../../services/external-system/index.js';
import { ADMINS } from '../../platform/roles.js';
import { withMeta } from '../plugins/envelope.js';
import { adminHandler } from '../handler.js';
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
    handler: adminHandler<{}, LinkRequest>(({ ctx, payload }) => previewLink(ctx, payload))
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
    handler: adminHandler<{}, LinkRequest>(async ({ ctx, actor, payload }) => {
      const result = await connectLink(ctx, actor, payload);
      return withMeta(result, { job: { id: result.job.id, status: result.job.status } });
    })
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
    handler: adminHandler(({ ctx, storeId }) => getLink(ctx, storeId))
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
    handler: adminHandler(({ ctx, storeId }) => disconnectLink(ctx, storeId))
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
    handler: adminHandler(async ({ ctx, storeId, actor, h }) => {
      const result = await requestSync(ctx, storeId, actor.userId);
      return h.response(withMeta(result, { job: { id: result.job.id, status: result.job.status } })).code(202);
    })
  }
});
