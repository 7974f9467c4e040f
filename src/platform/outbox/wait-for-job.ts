import type { QueueEvents } from 'bullmq';

export interface PendingJobOutcome<Result> {
  result: Promise<Result>;
  cancel(): void;
  /** True once the wait ended because no outcome came in time (the job may still run). */
  timedOut(): boolean;
}

/**
 * Waits for one job's completion or final failure by id, through the queue's event stream. Start
 * waiting before the job can run (before relaying it), so a fast job's event is not missed.
 */
export function waitForJob<Result>(events: QueueEvents, jobId: string, timeoutMs: number): PendingJobOutcome<Result> {
  let cleanup = () => {};
  let expired = false;
  const result = new Promise<Result>((resolve, reject) => {
    const onCompleted = ({ jobId: id, returnvalue }: { jobId: string; returnvalue: unknown }) => {
      if (id !== jobId) return;
      cleanup();
      resolve((typeof returnvalue === 'string' ? safeParse(returnvalue) : returnvalue) as Result);
    };
    const onFailed = ({ jobId: id, failedReason }: { jobId: string; failedReason: string }) => {
      if (id !== jobId) return;
      cleanup();
      reject(new Error(failedReason));
    };
    const timer = setTimeout(() => {
      expired = true;
      cleanup();
      reject(new Error(`no outcome within ${timeoutMs} ms`));
    }, timeoutMs);
    cleanup = () => {
      clearTimeout(timer);
      events.off('completed', onCompleted);
      events.off('failed', onFailed);
    };
    events.on('completed', onCompleted);
    events.on('failed', onFailed);
  });
  // The job may fail while the caller is still relaying it; the caller awaits `result` after that, so
  // an early rejection must not count as unhandled.
  result.catch(() => {});
  return { result, cancel: () => cleanup(), timedOut: () => expired };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
