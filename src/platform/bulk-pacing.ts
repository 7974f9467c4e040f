import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Bulk jobs (the product CSV import, bulk edits) yield the CPU to requests (issue #33). A worker
 * often shares its machine with the API and PostgreSQL: an import running flat out took 1.5 of two
 * cores (three quarters of it in PostgreSQL, which the worker's own OS priority does not reach),
 * and the storefront served 61% of its idle throughput meanwhile.
 *
 * After each batch the job asks how long the worker's thread waited for a CPU while it was
 * runnable during that batch (Linux: `/proc/self/schedstat`, the run-queue wait beside the time on
 * a CPU). When it waited for half of that time or more in this batch and the one before (one
 * batch alone may meet a short burst: an ANALYZE, a checkpoint), something else wants the machine:
 * the job then pauses so that it works at most `busyPercent` of the wall time (BULK_JOB_BUSY_PERCENT, 25 by
 * default): the pause is the batch's time × (100 / busyPercent - 1), at most 10 s. The pause also
 * stops the job's PostgreSQL work, not only the worker's. On an idle machine the job runs flat out,
 * and however busy the machine it still makes progress at `busyPercent` of its pace.
 * `busyPercent = 100` never pauses. Where the wait is not known (not Linux), it never pauses.
 */
export interface BulkPacerOptions {
  /** Share (1-100) of the wall time a bulk job works while the machine is busy. */
  busyPercent: number;
  /** The calling thread's CPU time and run-queue wait so far (ns); null where unknown. */
  probe?: () => CpuWait | null;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

export interface CpuWait {
  runNs: number;
  waitNs: number;
}

/** The run-queue wait share (of the time the thread was runnable) at or above which the machine counts as busy. */
export const BUSY_WAIT_SHARE = 0.5;
/** Batches in a row that must find the machine busy before the job pauses. */
export const BUSY_BATCHES = 2;
/** Less runnable time than this in a batch says nothing (the thread mostly waited on PostgreSQL). */
const MIN_RUNNABLE_NS = 2_000_000;
export const MAX_PAUSE_MS = 10_000;

/** `/proc/self/schedstat`: time on a CPU, time waiting on a run queue (ns), time slices; of the main thread. */
export function parseSchedstat(text: string): CpuWait | null {
  const [run, wait] = text.trim().split(/\s+/).map(Number);
  return Number.isFinite(run) && Number.isFinite(wait) ? { runNs: run!, waitNs: wait! } : null;
}

export function schedstatProbe(): CpuWait | null {
  try {
    return parseSchedstat(readFileSync('/proc/self/schedstat', 'utf8'));
  } catch {
    return null;
  }
}

const abortableSleep = (ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal }).catch(() => undefined);

export class BulkPacer {
  private readonly busyPercent: number;
  private readonly probe: () => CpuWait | null;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly now: () => number;
  private startedAt = 0;
  private startWait: CpuWait | null = null;
  /** Batches in a row that found the machine busy. */
  private busyBatches = 0;
  /** Pauses taken and their total, for logs and tests. */
  pauses = 0;
  pausedMs = 0;

  constructor(options: BulkPacerOptions) {
    this.busyPercent = Math.min(100, Math.max(1, Math.round(options.busyPercent)));
    this.probe = options.probe ?? schedstatProbe;
    this.sleep = options.sleep ?? abortableSleep;
    this.now = options.now ?? (() => performance.now());
  }

  /** A batch starts. */
  begin(): void {
    this.startedAt = this.now();
    this.startWait = this.busyPercent < 100 ? this.probe() : null;
  }

  /** A batch is done: pauses when the machine was busy during it; resolves with the pause (ms). */
  async end(signal?: AbortSignal): Promise<number> {
    const pause = this.pauseFor();
    if (pause <= 0) return 0;
    this.pauses += 1;
    this.pausedMs += pause;
    // A shutdown (the signal aborted) ends the pause at once; the job then stops at its next check.
    await this.sleep(pause, signal instanceof AbortSignal ? signal : undefined);
    return pause;
  }

  /** The pause the batch just ended calls for (0 on an idle machine). */
  pauseFor(): number {
    const from = this.startWait;
    this.startWait = null;
    const to = from && this.probe();
    if (!from || !to) return 0;
    const run = to.runNs - from.runNs;
    const wait = to.waitNs - from.waitNs;
    // Too little runnable time says nothing either way (the thread mostly waited on PostgreSQL).
    if (run + wait < MIN_RUNNABLE_NS) return 0;
    this.busyBatches = wait / (run + wait) >= BUSY_WAIT_SHARE ? this.busyBatches + 1 : 0;
    if (this.busyBatches < BUSY_BATCHES) return 0;
    const worked = Math.max(0, this.now() - this.startedAt);
    return Math.min(MAX_PAUSE_MS, Math.round(worked * (100 / this.busyPercent - 1)));
  }
}
