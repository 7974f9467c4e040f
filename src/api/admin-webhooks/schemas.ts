import Joi from 'joi';
import { WEBHOOK_TOPICS } from '../../services/webhooks/index.js';
import { idValue, responseObject, text, timestamp } from '../schemas.js';

const topic = Joi.string().valid(...WEBHOOK_TOPICS);
const topics = Joi.array().items(topic).min(1).max(WEBHOOK_TOPICS.length).unique();
const url = Joi.string().trim().max(2000).uri({ scheme: ['https', 'http'] });

export const createWebhookPayload = Joi.object({
  url: url.required(),
  topics: topics.required(),
  description: text(500).allow('', null)
});

export const updateWebhookPayload = Joi.object({
  url,
  topics,
  description: text(500).allow('', null),
  enabled: Joi.boolean()
}).min(1);

const webhookResource = responseObject({
  id: idValue().required(),
  url: Joi.string().required(),
  topics: Joi.array().items(topic).required(),
  description: Joi.string().allow(null, '').required(),
  enabled: Joi.boolean().required(),
  disabledReason: Joi.string().allow(null).required(),
  failingSince: timestamp().allow(null).required().description('first failure since the last success'),
  previousSecretExpiresAt: timestamp().allow(null).required().description('until then the rotated-out secret signs alongside the new one'),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('WebhookSubscription');

export const webhookListResponse = responseObject({ webhooks: Joi.array().items(webhookResource).required() });
export const webhookResponse = responseObject({ webhook: webhookResource.required() });
/** Create and rotate-secret: the only answers that carry the signing secret. */
export const webhookSecretResponse = responseObject({ webhook: webhookResource.required(), secret: Joi.string().pattern(/^whsec_/).required() });
export const webhookDeletedResponse = responseObject({ deleted: Joi.boolean().valid(true).required() });

const deliveryResource = responseObject({
  id: idValue().required(),
  eventId: idValue().required().description('the Shopwright-Event-Id header: the same on every attempt and redelivery'),
  topic: Joi.string().required(),
  version: Joi.number().integer().required(),
  status: Joi.string().valid('pending', 'delivering', 'succeeded', 'failed').required(),
  attempts: Joi.number().integer().min(0).required(),
  lastStatusCode: Joi.number().integer().allow(null).required(),
  lastDurationMs: Joi.number().integer().allow(null).required(),
  lastError: Joi.string().allow(null, '').required(),
  responseBody: Joi.string().allow(null, '').required().description('the first 1 KB of the last answer'),
  nextRetryAt: timestamp().allow(null).required(),
  createdAt: timestamp().required(),
  completedAt: timestamp().allow(null).required()
}).label('WebhookDelivery');

export const deliveryListResponse = responseObject({ deliveries: Joi.array().items(deliveryResource).required() });
export const deliveryResponse = responseObject({ delivery: deliveryResource.required() });
