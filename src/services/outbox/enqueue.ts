import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Sql } from '../../db/transaction.js';
import { PREPARED } from '../../db/prepared-statements.js';
import { checkedPayload, type JobKind } from '../../jobs/job-kind.js';
import { wakeRelayAfterCommit } from './wake.js';

export interface EnqueueOptions {
  /** A business key for the BullMQ job id (e.g. `order-email-<orderId>`; BullMQ refuses `:` in ids); defaults to the outbox row id. */
  jobId?: string;
  /** Run no earlier than this (a delayed job; the delay is computed when the row is relayed). */
  runAt?: Date;
  /** Per-call BullMQ options over the kind's own (attempts for a test send, priority). */
  attempts?: number;
  priority?: number;
  /**
   * Another insert to make in the same statement (one round trip instead of two): the row the job
   * is about, e.g. the email_log row of an email.
   */
  together?: Knex.QueryBuilder;
}

/**
 * Records the intent to run a job in the caller's transaction (or on its own when given the pool):
 * the job exists exactly when the write that motivated it commits. The relay moves it into BullMQ.
 */
export async function enqueueJob<Payload>(
  db: Sql,
  kind: JobKind<Payload>,
  payload: Payload,
  options: EnqueueOptions = {}
): Promise<{ jobId: string; outboxId: string }> {
  const id = randomUUID();
  const jobId = options.jobId ?? id;
  if (jobId.includes(':')) throw new Error(`job id ${jobId} of ${kind.name}: BullMQ job ids cannot contain ':'`);
  const jobOptions = {
    ...kind.options,
    ...(options.attempts !== undefined ? { attempts: options.attempts } : {}),
    ...(options.priority !== undefined ? { priority: options.priority } : {})
  };
  const row = {
    id,
    queue: kind.queue,
    name: kind.name,
    jobId,
    payload: JSON.stringify(checkedPayload(kind, payload)),
    options: JSON.stringify(jobOptions),
    runAt: options.runAt ?? null
  };
  await (options.together ? db.queryBuilder().with('together', options.together).insert(row).into('outbox') : db('outbox').insert(row)).options(PREPARED);
  wakeRelayAfterCommit(db);
  return { jobId, outboxId: id };
}
