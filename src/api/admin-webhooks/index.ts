import type { ServerRoute } from '@hapi/hapi';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  pingWebhook,
  redeliverWebhook,
  rotateWebhookSecret,
  updateWebhook
} from './routes.js';

export const adminWebhookRoutes: ServerRoute[] = [
  listWebhooks,
  createWebhook,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  pingWebhook,
  listWebhookDeliveries,
  redeliverWebhook
];
