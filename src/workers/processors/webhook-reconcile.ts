import { webhookReconcileJob } from '../../jobs/webhook-reconcile.js';
import { reconcileStripeEvents } from '../../services/payments/index.js';
import { processorOf } from '../processor.js';

export const webhookReconcileProcessor = processorOf(webhookReconcileJob, (ctx) => reconcileStripeEvents(ctx));
