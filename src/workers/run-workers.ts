import { UnrecoverableError, type Job, type Worker } from 'bullmq';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { JOB_KINDS } from '../jobs/registry.js';
import { QUEUE_NAMES, type QueueName } from '../jobs/queues.js';
import type { TrackedJobPayload } from '../jobs/tracked.js';
import { recordJobFailure } from '../services/job-history/index.js';
import { isFinalAttempt } from './final-attempt.js';
import type { JobProcessor } from './processor.js';
import { PROCESSORS } from './processors/index.js';
import { registerSchedules } from './schedules.js';

export interface WorkerPool {
  workers: Worker[];
  close(): Promise<void>;
}

/** A queue's worker runs as many jobs at once as its busiest kind asks for. */
function concurrencyOf(processors: JobProcessor[]): number {
  return Math.max(1, ...processors.map(({ kind }) => kind.concurrency ?? 1));
}

/** A declared kind without a processor would sit in its queue unrun: refuse to start instead. */
function checkEveryKindProcessed(): void {
  const processed = new Set(PROCESSORS.map(({ kind }) => kind.name));
  const missing = JOB_KINDS.filter((kind) => !processed.has(kind.name)).map((kind) => kind.name);
  if (missing.length) throw new Error(`job kinds without a processor in src/workers/processors/: ${missing.join(', ')}`);
}

/**
 * One BullMQ worker per queue, dispatching by job name to the registered processors. Closing aborts
 * the shared signal (long processors stop at a safe point) and lets active jobs finish.
 */
export async function startWorkers(ctx: AppContext, queues: readonly QueueName[] = QUEUE_NAMES): Promise<WorkerPool> {
  const { pool, ready } = launchWorkers(ctx, queues);
  await ready;
  return pool;
}

/**
 * startWorkers, with the pool handed back at once: it may be closed while the workers still start
 * (a SIGTERM right after the API came up), which ends the start instead of leaving workers to come
 * up on a context being closed. `ready` settles when they run and their schedules are registered,
 * or when the pool was closed first.
 */
export function launchWorkers(ctx: AppContext, queues: readonly QueueName[] = QUEUE_NAMES): { pool: WorkerPool; ready: Promise<void> } {
  checkEveryKindProcessed();
  const shutdown = new AbortController();
  const running = queues
    .map((queue) => ({ queue, processors: PROCESSORS.filter(({ kind }) => kind.queue === queue) }))
    .filter(({ processors }) => processors.length > 0);
  const workers = running.map(({ queue, processors }) => startQueueWorker(ctx, queue, processors, shutdown.signal));
  let connected = false;
  const ready = (async () => {
    try {
      await Promise.all(workers.map((w) => w.waitUntilReady()));
    } catch (error) {
      if (shutdown.signal.aborted) return;
      throw error;
    }
    connected = true;
    if (shutdown.signal.aborted) return;
    await registerSchedules(ctx, queues).catch((error: Error) => {
      if (!shutdown.signal.aborted) ctx.log.warn({ err: { message: error.message } }, 'job schedules not registered');
    });
  })();
  const pool: WorkerPool = {
    workers,
    close: async () => {
      shutdown.abort();
      // Connected: the schedules being registered finish first (they use the queues being closed).
      // Not connected yet (Redis down at boot): no job to wait for, and a graceful close would wait
      // for the connection: forced.
      if (connected) await ready.catch(() => undefined);
      await Promise.all(workers.map((w) => w.close(!connected)));
      // After their last job: what the processors of these queues keep for the process.
      const closing = running.flatMap(({ processors }) => processors.flatMap(({ close }) => (close ? [close(ctx).catch(() => undefined)] : [])));
      await Promise.all(closing);
    }
  };
  return { pool, ready };
}

function startQueueWorker(ctx: AppContext, queue: QueueName, processors: JobProcessor[], signal: AbortSignal): Worker {
  const byName = new Map(processors.map((processor) => [processor.kind.name, processor]));
  const worker = ctx.backends.queue.worker(
    queue,
    async (job: Job) => {
      const processor = byName.get(job.name);
      if (!processor) throw new UnrecoverableError(`no processor for job ${job.name} on queue ${queue}`);
      const started = Date.now();
      const fields = { kind: job.name, jobId: job.id, storeId: (job.data as { storeId?: string })?.storeId, attempt: job.attemptsMade + 1 };
      ctx.log.info(fields, 'job started');
      try {
        const result = await processor.process(ctx, job, signal);
        ctx.log.info({ ...fields, durationMs: Date.now() - started, outcome: 'completed' }, 'job finished');
        return result;
      } catch (error) {
        ctx.log.warn({ ...fields, durationMs: Date.now() - started, outcome: 'failed', err: { message: (error as Error).message } }, 'job finished');
        // A client error will fail the same way on every retry: stop now.
        if (error instanceof AppError && error.status < 500) throw new UnrecoverableError(error.message);
        throw error;
      }
    },
    {
      concurrency: concurrencyOf(processors),
      lockDuration: ctx.config.jobLockMs,
      stalledInterval: ctx.config.jobLockMs,
      autorun: true
    }
  );
  // Failures BullMQ decides itself (stalled more than allowed) never reach the processor: the job
  // run's row learns of them here, so no row stays `active` for ever.
  worker.on('failed', (job, error) => {
    const runId = (job?.data as Partial<TrackedJobPayload> | undefined)?.jobId;
    if (job && runId && isFinalAttempt(job, error)) {
      void recordJobFailure(ctx, runId, error.message, true).catch(() => undefined);
    }
  });
  worker.on('error', (error) => ctx.log.error({ queue, err: { message: error.message } }, 'worker error'));
  return worker;
}
