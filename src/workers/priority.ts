import os from 'node:os';
import type { Config } from '../config.js';

/**
 * The worker process runs below the API's OS priority (WORKER_NICE, 10 by default; issue #33): on a
 * machine it shares with the API, a request's work comes before a job's when both want a CPU, and a
 * job still takes every cycle nobody else wants. Only `npm run worker` does this (`npm start` serves
 * requests from the same process). A process may always lower its own priority, never raise it back
 * without privileges: this is done once, at start, and a process already nicer is left as it is.
 * On Linux the nice value is per thread: this is the main thread's, where every job runs.
 * The worker's PostgreSQL work is not reached by it: bulk jobs pace themselves for that
 * (platform/bulk-pacing.ts).
 */
export function lowerWorkerPriority(
  config: Pick<Config, 'workerNice'>,
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void },
  system: { getPriority(): number; setPriority(nice: number): void } = { getPriority: () => os.getPriority(), setPriority: (nice) => os.setPriority(nice) }
): number {
  const current = system.getPriority();
  if (config.workerNice <= current) return current;
  try {
    system.setPriority(config.workerNice);
    log.info({ nice: config.workerNice }, 'worker priority lowered');
    return config.workerNice;
  } catch (error) {
    log.warn({ nice: config.workerNice, err: { message: (error as Error).message } }, 'worker priority not lowered');
    return current;
  }
}
