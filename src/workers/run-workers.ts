import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { JOB_DEFINITIONS } from '../jobs/registry.js';
import { QUEUE_NAMES, type QueueName } from '../jobs/queues.js';
import { bullmqConnection } from '../redis.js';

const CONCURRENCY: Record<QueueName, number> = { email: 10, imports: 1, campaigns: 2, domains: 4, sync: 1, webhooks: 8 };

export interface WorkerPool {
  workers: Worker[];
  close(): Promise<void>;
}

/** One BullMQ worker per queue, dispatching by job name to the registered definitions. */
export async function startWorkers(ctx: AppContext, queues: readonly QueueName[] = QUEUE_NAMES): Promise<WorkerPool> {
  const workers = queues.map((queue) => {
    const definitions = new Map(JOB_DEFINITIONS.filter((d) => d.queue === queue).map((d) => [d.name, d]));
    const worker = new Worker(
      queue,
      async (job: Job) => {
        const definition = definitions.get(job.name);
        if (!definition) throw new UnrecoverableError(`no processor for job ${job.name} on queue ${queue}`);
        try {
          return await definition.process(ctx, job);
        } catch (error) {
          // A client error will fail the same way on every retry: stop now.
          if (error instanceof AppError && error.status < 500) throw new UnrecoverableError(error.message);
          throw error;
        }
      },
      {
        connection: bullmqConnection(ctx.config.redisUrl),
        prefix: ctx.config.redisPrefix,
        concurrency: CONCURRENCY[queue],
        autorun: true
      }
    );
    worker.on('failed', (job, error) =>
      ctx.log.warn({ queue, job: job?.name, jobId: job?.id, attempt: job?.attemptsMade, err: { message: error.message } }, 'job failed')
    );
    worker.on('error', (error) => ctx.log.error({ queue, err: { message: error.message } }, 'worker error'));
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return {
    workers,
    // close() lets active jobs finish before it resolves.
    close: async () => {
      await Promise.all(workers.map((w) => w.close()));
    }
  };
}
