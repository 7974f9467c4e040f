import type { Job } from 'bullmq';
import type { AppContext } from '../context.js';
import type { QueueName } from './queues.js';

/** A job kind: which queue it travels on, its name, and the processor (which calls a service). */
export interface JobDefinition<Payload = unknown, Result = unknown> {
  queue: QueueName;
  name: string;
  process(ctx: AppContext, job: Job<Payload>): Promise<Result>;
}
