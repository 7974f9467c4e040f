import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import type { JobKind } from '../../jobs/job-kind.js';
import type { TrackedJobPayload } from '../../jobs/tracked.js';
import { reactInTransaction } from '../events/domain-events.js';
import { enqueueJob } from '../outbox/enqueue.js';
import { keysetPage, type PageRequest } from '../pagination.js';
import { raiseJobFailureIssue } from '../issues/failure-issues.js';
import { storageFor } from '../storage/index.js';
import { withTransaction } from '../with-transaction.js';
import type { Sql, Transaction } from '../../db/transaction.js';

export const JOB_STATUSES = ['queued', 'active', 'completed', 'failed'] as const;

/** A job run operators see at /admin/jobs (table `jobs`), mirrored from its BullMQ job. */
export interface JobRow {
  id: string;
  storeId: string | null;
  type: string;
  queue: string;
  status: (typeof JOB_STATUSES)[number];
  progress: Record<string, unknown>;
  input: Record<string, unknown>;
  checkpoint: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  error: string | null;
  fileKey: string | null;
  attempts: number;
  createdBy: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  updatedAt: Date;
}

export const toJobDto = (row: JobRow) => ({
  id: row.id,
  type: row.type,
  status: row.status,
  progress: row.progress,
  result: row.result,
  error: row.error,
  createdAt: row.createdAt,
  startedAt: row.startedAt,
  finishedAt: row.finishedAt
});
export type JobDto = ReturnType<typeof toJobDto>;

export interface CreateJobInput {
  storeId: string;
  /** The `type` operators filter `/admin/jobs` by, e.g. `customers.import`. */
  type: string;
  kind: JobKind<TrackedJobPayload>;
  input?: Record<string, unknown>;
  createdBy?: string | null;
  id?: string;
}

/**
 * Records the job run and its queue intent (the outbox row) in one transaction: the caller's when
 * given, so the job exists exactly when the change that asks for it commits.
 */
export async function createJob(ctx: AppContext, input: CreateJobInput, trx?: Transaction): Promise<JobDto> {
  const id = input.id ?? randomUUID();
  const write = async (db: Transaction) => {
    const [row] = await db('jobs')
      .insert({ id, storeId: input.storeId, type: input.type, queue: input.kind.queue, input: input.input ?? {}, createdBy: input.createdBy ?? null })
      .returning('*');
    await enqueueJob(db, input.kind, { jobId: id, storeId: input.storeId }, { jobId: id });
    return toJobDto(row);
  };
  return trx ? write(trx) : withTransaction(ctx, write);
}

export async function findJobRow(ctx: AppContext, jobId: string): Promise<JobRow | undefined> {
  return ctx.db('jobs').where({ id: jobId }).first();
}

/** A running job's resume point and what `/admin/jobs` shows of its progress, in the caller's transaction. */
export async function saveJobProgress(trx: Transaction, jobId: string, state: { checkpoint: object; progress: object }): Promise<void> {
  await trx('jobs').where({ id: jobId }).update({ checkpoint: state.checkpoint, progress: state.progress, updatedAt: trx.fn.now() });
}

/**
 * saveJobProgress guarded on the checkpoint's `key` still being `expected` (null: absent): false
 * when another runner of the job moved it first, so two runners never both commit one batch.
 */
export async function saveJobProgressFrom(
  trx: Transaction,
  jobId: string,
  guard: { key: string; expected: string | number | null },
  state: { checkpoint: object; progress: object }
): Promise<boolean> {
  const updated = await trx('jobs')
    .where({ id: jobId })
    .whereRaw(`(checkpoint->>?) is not distinct from ?::text`, [guard.key, guard.expected === null ? null : String(guard.expected)])
    .update({ checkpoint: JSON.stringify(state.checkpoint), progress: JSON.stringify(state.progress), updatedAt: trx.fn.now() });
  return updated === 1;
}

/** A job's bad input rows (row, column, problem), in the caller's transaction: what the job result lists. */
export async function insertJobRowErrors(trx: Transaction, jobId: string, errors: Array<{ row: number; column: string; message: string }>): Promise<void> {
  if (!errors.length) return;
  await trx.raw(`insert into job_row_errors (job_id, row_number, column_name, message) select ?, * from unnest(?::int[], ?::text[], ?::text[])`, [
    jobId,
    errors.map((e) => e.row),
    errors.map((e) => e.column),
    errors.map((e) => e.message)
  ]);
}

/** A worker picked the job up (first attempt or retry). */
export async function markJobActive(ctx: AppContext, jobId: string): Promise<void> {
  await ctx
    .db('jobs')
    .where({ id: jobId })
    .whereIn('status', ['queued', 'active'])
    .update({
      status: 'active',
      attempts: ctx.db.raw('attempts + 1'),
      startedAt: ctx.db.raw('coalesce(started_at, now())'),
      updatedAt: ctx.db.fn.now()
    });
}

export async function reportJobProgress(ctx: AppContext, jobId: string, progress: Record<string, unknown>): Promise<void> {
  await ctx.db('jobs').where({ id: jobId }).update({ progress, updatedAt: ctx.db.fn.now() });
}

export async function completeJob(ctx: AppContext, jobId: string, result: Record<string, unknown>, fileKey?: string): Promise<void> {
  await withTransaction(ctx, async (trx) => {
    const [row] = await trx('jobs')
      .where({ id: jobId })
      .update({
        status: 'completed',
        result,
        error: null,
        progress: trx.raw(`progress || '{"percent": 100}'::jsonb`),
        ...(fileKey ? { fileKey } : {}),
        finishedAt: trx.fn.now(),
        updatedAt: trx.fn.now()
      })
      .returning(['storeId']);
    if (row?.storeId) await reactInTransaction(ctx, trx, [{ type: 'job.finished', storeId: row.storeId, jobId, outcome: 'completed' }]);
  });
}

/** A job run in the admin API's shape (webhook payloads), read with the caller's handle. */
export async function jobResource(db: Sql, storeId: string, jobId: string): Promise<JobDto | null> {
  const row: JobRow | undefined = await db('jobs').where({ storeId, id: jobId }).first();
  return row ? toJobDto(row) : null;
}

/**
 * A failed attempt: `final` when no retry will follow (the job is failed for good). A job failed
 * for good no longer needs its uploaded input file, so that is removed too.
 */
export async function recordJobFailure(ctx: AppContext, jobId: string, message: string, final: boolean): Promise<void> {
  const row = await withTransaction(ctx, async (trx) => {
    const [updated] = await trx('jobs')
      .where({ id: jobId })
      .whereNot({ status: 'completed' })
      .update({
        status: final ? 'failed' : 'queued',
        error: message.slice(0, 2000),
        ...(final ? { finishedAt: trx.fn.now() } : {}),
        updatedAt: trx.fn.now()
      })
      .returning(['input', 'id', 'storeId', 'type']);
    if (final && updated?.storeId) await reactInTransaction(ctx, trx, [{ type: 'job.finished', storeId: updated.storeId, jobId, outcome: 'failed' }]);
    return updated;
  });
  if (final && row) await raiseJobFailureIssue(ctx, row, message).catch(() => undefined);
  const inputFile = (row?.input as { fileKey?: unknown } | undefined)?.fileKey;
  if (final && typeof inputFile === 'string') await storageFor(ctx).delete(inputFile);
}

/**
 * A job's result as lists show it: every list in it (an import's 10,000 row errors) replaced by its
 * length as `<name>Count`, computed in PostgreSQL so the lists never leave the database.
 * `GET /admin/jobs/{jobId}` has the full result.
 */
const RESULT_SUMMARY_SQL = `case when jsonb_typeof(result) = 'object' then (
    select coalesce(jsonb_object_agg(case when jsonb_typeof(value) = 'array' then key || 'Count' else key end,
                                     case when jsonb_typeof(value) = 'array' then to_jsonb(jsonb_array_length(value)) else value end), '{}'::jsonb)
      from jsonb_each(result)
  ) else result end as result`;

const LIST_COLUMNS = ['id', 'storeId', 'type', 'queue', 'status', 'progress', 'error', 'createdAt', 'startedAt', 'finishedAt'];

export async function listJobs(ctx: AppContext, storeId: string, filters: { type?: string }, page: PageRequest) {
  const query = ctx.db('jobs').where({ storeId }).select([...LIST_COLUMNS, ctx.db.raw(RESULT_SUMMARY_SQL)]);
  if (filters.type) query.where({ type: filters.type });
  const result = await keysetPage<JobRow>(query, { column: 'createdAt', direction: 'desc' }, page);
  return { jobs: result.items.map(toJobDto), nextCursor: result.nextCursor };
}

export async function getJob(ctx: AppContext, storeId: string, jobId: string): Promise<JobDto> {
  const row: JobRow | undefined = await ctx.db('jobs').where({ storeId, id: jobId }).first();
  if (!row) throw notFound('Job');
  return toJobDto(row);
}

/** Some jobs of one store by id (missing ids are absent): one statement for every stream following them. */
export async function getJobsByIds(ctx: AppContext, storeId: string, jobIds: string[]): Promise<Map<string, JobDto>> {
  const rows: JobRow[] = await ctx.db('jobs').where({ storeId }).whereIn('id', jobIds);
  return new Map(rows.map((row) => [row.id, toJobDto(row)]));
}

/** The stored file of a completed job of this store (exports); 404 otherwise. */
export async function jobFileKey(ctx: AppContext, storeId: string, jobId: string): Promise<{ fileKey: string; type: string; createdAt: Date }> {
  const row: JobRow | undefined = await ctx.db('jobs').where({ storeId, id: jobId }).first();
  if (!row) throw notFound('Job');
  // An export still running (or failed) will have (or never had) a file: say so, not "unknown job".
  if (row.status !== 'completed' && row.type.endsWith('.export')) throw conflict('conflict', `The export is not ready: it is ${row.status}`);
  if (row.status !== 'completed' || !row.fileKey) throw notFound('Job file');
  return { fileKey: row.fileKey, type: row.type, createdAt: row.createdAt };
}
