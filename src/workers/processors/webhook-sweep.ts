import { webhookSweepJob } from '../../jobs/webhook-sweep.js';
import { sweepStuckDeliveries } from '../../services/webhooks/index.js';
import { processorOf } from '../processor.js';

export const webhookSweepProcessor = processorOf(webhookSweepJob, (ctx) => sweepStuckDeliveries(ctx));
