import { randomUUID } from 'node:crypto';
import { defineStatement, runStatements, type Statement, type StatementCall } from '../../db/prepared-statements.js';
import type { Sql } from '../../db/transaction.js';
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
   * is about, e.g. the email_log row of an email. `sql` is a fixed text with named bindings (none
   * of the outbox's own: id, queue, name, jobId, payload, options, runAt).
   */
  together?: { sql: string; values: Record<string, unknown> };
}

const OUTBOX_INSERT = `insert into outbox (id, queue, name, job_id, payload, options, run_at)
  values (:id, :queue, :name, :jobId, :payload::jsonb, :options::jsonb, :runAt)`;

const INSERT = defineStatement(OUTBOX_INSERT);

/** One statement per `together` text (a handful in all). */
const insertsWith = new Map<string, Statement>();

function insertStatement(together: EnqueueOptions['together']): Statement {
  if (!together) return INSERT;
  let statement = insertsWith.get(together.sql);
  if (!statement) {
    statement = defineStatement(`with together as (${together.sql}) ${OUTBOX_INSERT}`);
    insertsWith.set(together.sql, statement);
  }
  return statement;
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
  const { call, jobId, outboxId } = jobInsert(kind, payload, options);
  await runStatements(db, [call]);
  return { jobId, outboxId };
}

/**
 * enqueueJob as a statement for the caller to run with others (runStatements): one round trip for
 * several writes. Once it has run, the relay is woken after the commit.
 */
export function jobInsert<Payload>(kind: JobKind<Payload>, payload: Payload, options: EnqueueOptions = {}): { call: StatementCall; jobId: string; outboxId: string } {
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
  const call: StatementCall = { statement: insertStatement(options.together), values: { ...options.together?.values, ...row }, ran: wakeRelayAfterCommit };
  return { call, jobId, outboxId: id };
}

/** Takes back a job intent the relay has not moved yet; false when it already went (or never was). */
export async function withdrawJob(db: Sql, jobId: string): Promise<boolean> {
  return (await db('outbox').where({ jobId }).delete()) > 0;
}

/**
 * A job already in the outbox (not yet relayed) learns one more payload field from the statement
 * that computes it: a CTE body for the caller's statement, `valueSql` a jsonb expression of it and
 * `idBinding` the named binding of the outbox row's id (jobInsert's outboxId). The checkout's order
 * insert writes the drawn order number into the confirmation email's job this way.
 */
export const setPayloadFieldSql = (field: string, valueSql: string, idBinding: string) =>
  `update outbox set payload = jsonb_set(payload, '{${field}}', ${valueSql})
      where id = ${idBinding}
     returning 1`;

