import Joi from 'joi';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import { listDeliveries, pingSubscription, redeliver } from '../../services/webhooks/index.js';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listSubscriptions,
  rotateSubscriptionSecret,
  updateSubscription,
  type SubscriptionPatch
} from '../../services/webhooks/index.js';
import type { WebhookTopic } from '../../services/webhooks/index.js';
import { withMeta } from '../plugins/envelope.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import {
  createWebhookPayload,
  deliveryListResponse,
  deliveryResponse,
  updateWebhookPayload,
  webhookDeletedResponse,
  webhookListResponse,
  webhookResponse,
  webhookSecretResponse
} from './schemas.js';

const tags = ['webhooks'];
type WebhookParams = { webhookId: string };

export const listWebhooks = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/webhooks',
  options: {
    description: 'List webhook subscriptions, oldest first, paginated (never the secret)',
    tags,
    validate: { query: Joi.object(paginationQuery) },
    response: { status: { 200: webhookListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string }>(async ({ ctx, storeId, query }) => {
      const { limit, cursor } = query;
      const result = await listSubscriptions(ctx, storeId, { limit, cursor });
      return withMeta({ webhooks: result.webhooks }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const createWebhook = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/webhooks',
  options: {
    plugins: { openapi: { errors: [409] } },
    description:
      'Subscribe an https endpoint on a public address to topics; the signing secret is shown only here. 409 url_taken when another subscription of the store has this URL (the message names it); 409 webhook_limit_reached past WEBHOOK_MAX_SUBSCRIPTIONS_PER_STORE (20) subscriptions',
    tags,
    validate: { payload: createWebhookPayload },
    response: { status: { 201: webhookSecretResponse } },
    handler: adminHandler<{}, { url: string; topics: WebhookTopic[]; description?: string | null }>(async ({ ctx, storeId, payload, h }) =>
      h.response(await createSubscription(ctx, storeId, payload)).code(201)
    )
  }
});

export const getWebhook = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/webhooks/{webhookId}',
  options: {
    description: 'One webhook subscription',
    tags,
    validate: { params: idParams('webhookId') },
    response: { status: { 200: webhookResponse } },
    handler: adminHandler<WebhookParams>(({ ctx, storeId, params }) => getSubscription(ctx, storeId, params.webhookId))
  }
});

export const updateWebhook = adminRoute(ADMINS, {
  method: 'PATCH',
  path: '/admin/store/webhooks/{webhookId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Change the URL, topics or description, or disable/enable (enabling clears the failure record); 409 url_taken for a URL another subscription of the store has',
    tags,
    validate: { params: idParams('webhookId'), payload: updateWebhookPayload },
    response: { status: { 200: webhookResponse } },
    handler: adminHandler<WebhookParams, SubscriptionPatch>(({ ctx, storeId, params, payload }) => updateSubscription(ctx, storeId, params.webhookId, payload))
  }
});

export const deleteWebhook = adminRoute(ADMINS, {
  method: 'DELETE',
  path: '/admin/store/webhooks/{webhookId}',
  options: {
    description: 'Delete a subscription with its delivery log',
    tags,
    validate: { params: idParams('webhookId') },
    response: { status: { 200: webhookDeletedResponse } },
    handler: adminHandler<WebhookParams>(({ ctx, storeId, params }) => deleteSubscription(ctx, storeId, params.webhookId))
  }
});

export const rotateWebhookSecret = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/webhooks/{webhookId}/rotate-secret',
  options: {
    description: 'A new signing secret; the old one keeps signing alongside it (a second v1=) for 24 hours',
    tags,
    validate: { params: idParams('webhookId') },
    response: { status: { 200: webhookSecretResponse } },
    handler: adminHandler<WebhookParams>(({ ctx, storeId, params }) => rotateSubscriptionSecret(ctx, storeId, params.webhookId))
  }
});

export const pingWebhook = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/webhooks/{webhookId}/ping',
  options: {
    description: 'Send a `ping` event to this endpoint (delivered like any event; see its delivery log)',
    tags,
    validate: { params: idParams('webhookId') },
    response: { status: { 202: deliveryResponse } },
    handler: adminHandler<WebhookParams>(async ({ ctx, storeId, params, h }) => h.response(await pingSubscription(ctx, storeId, params.webhookId)).code(202))
  }
});

export const listWebhookDeliveries = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/webhooks/{webhookId}/deliveries',
  options: {
    description: 'The delivery log, newest first: event, attempts, last status code, duration, next retry, first 1 KB of the answer',
    tags,
    validate: { params: idParams('webhookId'), query: Joi.object(paginationQuery) },
    response: { status: { 200: deliveryListResponse } },
    handler: adminHandler<WebhookParams, undefined, { limit: number; cursor?: string }>(async ({ ctx, storeId, params, query }) => {
      const { limit, cursor } = query;
      const result = await listDeliveries(ctx, storeId, params.webhookId, { limit, cursor });
      return withMeta({ deliveries: result.deliveries }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const redeliverWebhook = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
  options: {
    description: 'Deliver the same event (same id, body and version) again, as a new delivery',
    tags,
    validate: { params: idParams('webhookId', 'deliveryId') },
    response: { status: { 202: deliveryResponse } },
    handler: adminHandler<WebhookParams & { deliveryId: string }>(async ({ ctx, storeId, params, h }) =>
      h.response(await redeliver(ctx, storeId, params.webhookId, params.deliveryId)).code(202)
    )
  }
});
