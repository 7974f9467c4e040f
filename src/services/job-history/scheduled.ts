import type { AppContext } from '../../context.js';
import { JOB_KINDS } from '../../jobs/registry.js';
import type { QueueName } from '../../jobs/queues.js';

export interface ScheduledJobDto {
  name: string;
  queue: QueueName;
  /** Milliseconds between runs, for an `every` schedule; null for a cron pattern. */
  every: number | null;
  /** The cron pattern (UTC), for a pattern schedule; null for an `every` schedule. */
  pattern: string | null;
  /** When the queue will next run it; null when no worker has registered its scheduler yet. */
  nextRunAt: Date | null;
  registered: boolean;
}

/**
 * The platform's scheduled job kinds (declared with `schedule` in src/jobs/) with their next run,
 * read from the queues' job schedulers (a worker registers them at boot, keyed by the kind's name).
 * The schedules are the platform's, not a store's: every store sees the same list.
 */
export async function listScheduledJobs(ctx: AppContext): Promise<ScheduledJobDto[]> {
  const scheduled = JOB_KINDS.filter((kind) => kind.schedule);
  const queues = [...new Set(scheduled.map((kind) => kind.queue))];
  const schedulersByQueue = new Map(
    await Promise.all(queues.map(async (queue) => [queue, await ctx.queues.get(queue).getJobSchedulers()] as const))
  );
  return scheduled.map((kind) => {
    const schedule = kind.schedule!;
    const scheduler = schedulersByQueue.get(kind.queue)?.find((s) => s.key === kind.name);
    return {
      name: kind.name,
      queue: kind.queue,
      every: 'every' in schedule ? schedule.every : null,
      pattern: 'pattern' in schedule ? schedule.pattern : null,
      nextRunAt: scheduler?.next ? new Date(scheduler.next) : null,
      registered: Boolean(scheduler)
    };
  });
}
