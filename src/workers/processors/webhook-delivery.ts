import { webhookDeliveryJob } from '../../jobs/webhook-delivery.js';
import { deliverWebhook, deliverWebhookBatch, releaseIdleWebhookSlots } from '../../services/webhooks/index.js';
import { processorOf } from '../processor.js';

/**
 * One attempt at a webhook delivery, or the first attempts of a batch; each outcome (and its next
 * attempt's job) is recorded by the service. A batch whose deliveries did not all finish keeps only
 * those in its data before it fails, so BullMQ's next run of the job makes only them. When the
 * workers close, the in-flight slots this process kept for its next attempts go back to the store.
 */
export const webhookDeliveryProcessor = processorOf(webhookDeliveryJob, async (ctx, job, signal) => {
  const { deliveries } = job.data;
  if (!deliveries) return { outcome: await deliverWebhook(ctx, job.data.deliveryId!, signal, job.data.subscriptionId, job.data.deferrals) };
  const batch = await deliverWebhookBatch(ctx, deliveries, signal, job.data.deferrals);
  if (batch.unfinished.length) {
    await job.updateData({ ...job.data, deliveries: batch.unfinished });
    throw batch.error ?? new Error(`${batch.unfinished.length} of ${deliveries.length} webhook deliveries were not attempted before the worker stopped`);
  }
  return { outcomes: batch.outcomes };
}, { close: releaseIdleWebhookSlots });
