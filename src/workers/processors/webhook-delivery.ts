import { webhookDeliveryJob } from '../../jobs/webhook-delivery.js';
import { deliverWebhook } from '../../services/webhooks/delivery.js';
import { processorOf } from '../processor.js';

/** One attempt at a webhook delivery; its outcome (and the next attempt's job) is recorded by the service. */
export const webhookDeliveryProcessor = processorOf(webhookDeliveryJob, async (ctx, job, signal) => ({ outcome: await deliverWebhook(ctx, job.data.deliveryId, signal, job.data.subscriptionId, job.data.deferrals) }));
