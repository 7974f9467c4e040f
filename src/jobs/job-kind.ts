import type { JobsOptions } from 'bullmq';
import type Joi from 'joi';
import type { QueueName } from './queues.js';

/** A repeatable job: BullMQ job scheduler options, registered at worker boot (upsert, so idempotent). */
export type JobSchedule = ({ every: number } | { pattern: string }) & {
  /** The payload each scheduled run gets (checked against the kind's schema at registration). */
  payload?: Record<string, unknown>;
};

/**
 * A job kind's declaration: what producers and workers share about one kind of background work,
 * in one file under src/jobs/. Producers (services) enqueue with it, so the name is spelled once;
 * the payload is checked with joi when it is enqueued (a bad payload is a programming error, found
 * at the producer). What a worker runs for it, its processor, is in src/workers/processors/: a
 * declaration imports no service, so a service can enqueue a job whose processor calls it back.
 */
export interface JobKind<Payload = any> {
  name: string;
  queue: QueueName;
  payload: Joi.ObjectSchema<Payload>;
  /** Attempts, backoff, retention, priority: merged over the queue defaults. */
  options?: JobsOptions;
  /** How many of this kind one worker process runs at once. */
  concurrency?: number;
  schedule?: JobSchedule;
}

export function defineJob<Payload>(kind: JobKind<Payload>): JobKind<Payload> {
  return kind;
}

/** Checks a payload against its kind's schema; throws (a producer bug) when it does not fit. */
export function checkedPayload<Payload>(kind: JobKind<Payload>, payload: Payload): Payload {
  const { error, value } = kind.payload.validate(payload, { abortEarly: false, convert: false });
  if (error) throw new Error(`invalid payload for job ${kind.name}: ${error.message}`);
  return value as Payload;
}
