import type { Queue, QueueEvents, JobsOptions } from 'bullmq';
import type { QueueBackend } from '../adapters/queue/index.js';
import type { Logger } from '../logger.js';

/** One queue per domain, so a flood of campaign sends never delays a password-reset email. */
export const QUEUE_NAMES = ['email', 'imports', 'campaigns', 'domains', 'sync', 'webhooks', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: 24 * 3600, count: 5_000 },
  removeOnFail: { age: 7 * 24 * 3600 }
};

export class Queues {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly events = new Map<QueueName, QueueEvents>();

  constructor(
    readonly backend: QueueBackend,
    private readonly log: Logger
  ) {}

  get(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = this.backend.queue(name, DEFAULT_JOB_OPTIONS);
      queue.on('error', (error) => this.log.warn({ queue: name, err: { message: error.message } }, 'queue connection error'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Completion events for a queue, for the few synchronous routes that wait on a job (test email). */
  async eventsFor(name: QueueName): Promise<QueueEvents> {
    let events = this.events.get(name);
    if (!events) {
      events = this.backend.events(name);
      this.events.set(name, events);
      await events.waitUntilReady();
    }
    return events;
  }

  async close(): Promise<void> {
    await Promise.all([...this.events.values()].map((e) => e.close()));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.events.clear();
    this.queues.clear();
  }
}
