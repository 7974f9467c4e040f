import pLimit, { type LimitFunction } from 'p-limit';
import type { AppContext } from '../../context.js';
import { webhookDeliveryJob, type DeliveryRef } from '../../jobs/webhook-delivery.js';
import { deliverWebhook, requeueDeferred, type DeliveryOutcome } from './delivery.js';

/**
 * Batch deliveries in flight at once in one process: as many as the one-delivery jobs a worker
 * runs at once (the kind's concurrency). A batch's deliveries wait their turn here rather than all
 * starting with their job: fifty batches of twenty started together put a thousand requests against
 * the endpoints' in-flight caps, and each one refused there became a deferral job (the webhooks
 * bench, 20 endpoints, fell from 558 to 207 deliveries/s before this limit).
 */
const inFlightOf = new WeakMap<AppContext, LimitFunction>();
function inFlight(ctx: AppContext): LimitFunction {
  let limit = inFlightOf.get(ctx);
  if (!limit) inFlightOf.set(ctx, (limit = pLimit(webhookDeliveryJob.concurrency ?? 50)));
  return limit;
}

export interface BatchResult {
  /** How many deliveries ended each way (succeeded, retrying, failed, deferred, skipped). */
  outcomes: Partial<Record<DeliveryOutcome, number>>;
  /** Deliveries whose attempt threw (a claim held elsewhere, the database away) or never started (shutdown): to run again. */
  unfinished: DeliveryRef[];
  /** The first of those errors. */
  error?: unknown;
}

/**
 * The first attempts of a batch of deliveries, each made exactly as deliverWebhook makes one alone
 * (its own in-flight slots, claim, outcome and retry job), so a batch changes what a job carries,
 * not what an attempt does; only the attempts that meet a full in-flight cap are re-queued together,
 * as one delayed batch. Different endpoints go at once; one endpoint's deliveries go at most
 * its in-flight cap at a time, so that a batch does not defer its own deliveries against each
 * other (a bulk write's batch may hold 25 for one endpoint), and every batch of the process shares
 * one limit of deliveries in flight (inFlight). After the worker's shutdown signal no
 * further delivery starts: those left are unfinished, for the job's next run.
 */
export async function deliverWebhookBatch(ctx: AppContext, deliveries: DeliveryRef[], signal?: AbortSignal, deferrals = 0): Promise<BatchResult> {
  const result: BatchResult = { outcomes: {}, unfinished: [] };
  const waiting: DeliveryRef[] = [];
  const inProcess = inFlight(ctx);
  const endpoints = new Map<string, LimitFunction>();
  const endpointLimit = (subscriptionId: string) => {
    let limit = endpoints.get(subscriptionId);
    if (!limit) endpoints.set(subscriptionId, (limit = pLimit(Math.max(1, ctx.config.webhooks.endpointConcurrency))));
    return limit;
  };
  const attempt = async (delivery: DeliveryRef) => {
    if (signal?.aborted) {
      result.unfinished.push(delivery);
      return;
    }
    try {
      const outcome = await deliverWebhook(ctx, delivery.deliveryId, signal, delivery.subscriptionId, deferrals, (deferred) => waiting.push(deferred));
      result.outcomes[outcome] = (result.outcomes[outcome] ?? 0) + 1;
    } catch (error) {
      result.unfinished.push(delivery);
      result.error ??= error;
    }
  };
  await Promise.all(deliveries.map((delivery) => endpointLimit(delivery.subscriptionId)(() => inProcess(() => attempt(delivery)))));
  // The attempts that met a full cap wait their turn as one job, not a job each: a bulk write's
  // batch for one busy endpoint re-queued up to 25 jobs, each costing the queue more than its attempt.
  if (waiting.length) {
    try {
      await requeueDeferred(ctx, waiting, deferrals);
    } catch (error) {
      result.unfinished.push(...waiting);
      result.error ??= error;
    }
  }
  return result;
}
