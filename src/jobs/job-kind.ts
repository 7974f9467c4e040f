import type { Job, JobsOptions } from 'bullmq';
import type Joi from 'joi';
import type { AppContext } from '../context.js';
import type { QueueName } from './queues.js';

/** A repeatable job: BullMQ job scheduler options, registered at worker boot (upsert, so idempotent). */
export type JobSchedule = ({ every: number } | { pattern: string }) & {
  /** The payload each scheduled run gets (checked against the kind's schema at registration). */
  payload?: Record<string, unknown>;
};

/**
 * A job kind: everything about one kind of background work, declared in one file under src/jobs/.
 * Producers and workers use the same object, so the name is spelled once; the payload is checked
 * with joi when it is enqueued (a bad payload is a programming error, found at the producer).
 */
export interface JobKind<Payload = any, Result = unknown> {
  name: string;
  queue: QueueName;
  payload: Joi.ObjectSchema<Payload>;
  /** Attempts, backoff, retention, priority: merged over the queue defaults. */
  options?: JobsOptions;
  /** How many of this kind one worker process runs at once. */
  concurrency?: number;
  schedule?: JobSchedule;
  /** Calls a service. `signal` aborts when the worker shuts down: long processors should stop at a safe point. */
  process(ctx: AppContext, job: Job<Payload>, signal: AbortSignal): Promise<Result>;
}

export function defineJob<Payload, Result>(kind: JobKind<Payload, Result>): JobKind<Payload, Result> {
  return kind;
}

/** Checks a payload against its kind's schema; throws (a producer bug) when it does not fit. */
export function checkedPayload<Payload>(kind: JobKind<Payload>, payload: Payload): Payload {
  const { error, value } = kind.payload.validate(payload, { abortEarly: false, convert: false });
  if (error) throw new Error(`invalid payload for job ${kind.name}: ${error.message}`);
  return value as Payload;
}
