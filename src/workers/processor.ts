import type { Job } from 'bullmq';
import type { AppContext } from '../context.js';
import type { JobKind } from '../jobs/job-kind.js';

/**
 * What a worker runs for one job kind: the kind's declaration (src/jobs/) and the code that calls
 * its service. `signal` aborts when the worker shuts down: long processors stop at a safe point.
 */
export interface JobProcessor<Payload = any> {
  kind: JobKind<Payload>;
  process(ctx: AppContext, job: Job<Payload>, signal: AbortSignal): Promise<unknown>;
  /** Run once when the workers close, after their last job: what the processor holds for the process. */
  close?(ctx: AppContext): Promise<void>;
}

export function processorOf<Payload>(kind: JobKind<Payload>, process: JobProcessor<Payload>['process'], hooks: Pick<JobProcessor<Payload>, 'close'> = {}): JobProcessor<Payload> {
  return { kind, process, ...hooks };
}
