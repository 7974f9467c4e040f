import type { AppContext } from '../context.js';
import { checkedPayload } from '../jobs/job-kind.js';
import { JOB_KINDS } from '../jobs/registry.js';
import type { QueueName } from '../jobs/queues.js';

/**
 * Registers every declared schedule with BullMQ job schedulers (upsert: registering twice, or from
 * several worker processes, keeps one scheduler) and removes schedulers no kind declares any more.
 * The scheduler id is the kind's name.
 */
export async function registerSchedules(ctx: AppContext, queues: readonly QueueName[]): Promise<void> {
  for (const queueName of queues) {
    const queue = ctx.queues.get(queueName);
    const declared = JOB_KINDS.filter((kind) => kind.queue === queueName && kind.schedule);
    for (const kind of declared) {
      const { payload = {}, ...repeat } = kind.schedule!;
      await queue.upsertJobScheduler(kind.name, repeat, {
        name: kind.name,
        data: checkedPayload(kind, payload),
        opts: kind.options ?? {}
      });
    }
    const wanted = new Set(declared.map((kind) => kind.name));
    for (const scheduler of await queue.getJobSchedulers()) {
      const id = scheduler.key;
      if (id && !wanted.has(id)) await queue.removeJobScheduler(id);
    }
  }
}
