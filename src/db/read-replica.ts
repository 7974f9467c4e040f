import type { Knex } from 'knex';
import { isBackendDown } from '../errors.js';
import type { Logger } from '../logger.js';
import { withinTime } from '../time-limit.js';

/**
 * A PostgreSQL streaming replica (REPLICA_DATABASE_URL) beside the primary, and what we last learnt
 * about it. A periodic probe (every `probeMs`, on a timer, never per request) asks the primary for
 * its WAL position and the replica for the position it has replayed:
 *
 * - `ok`: in recovery and replaying; its lag is within `maxLagMs`;
 * - `lagging`: it has not replayed WAL the primary had written more than `maxLagMs` ago;
 * - `down`: unreachable, not a standby any more (promoted), or a read on it failed for want of a
 *   connection (then it stays down until a probe finds it back);
 * - `starting`: no probe has answered yet.
 *
 * Only `ok` serves reads. The lag is measured in time without trusting clocks across servers: each
 * probe keeps (when, primary WAL position); the replica's lag is how long ago the primary had
 * written the oldest position it has not replayed yet (0 when it has replayed everything the
 * primary had at the last probe, so an idle primary never makes a replica look late).
 *
 * Read-your-writes needs a position to compare with: `hasReplayed(lsn)` is true when the last
 * probe saw the replica past `lsn`; when it is not, `probeSoon()` asks for an early probe, so a
 * replica that has caught up serves again after one round trip rather than one probe period.
 */
export type ReplicaHealth = 'starting' | 'ok' | 'lagging' | 'down';

export interface ReplicaStatus {
  state: ReplicaHealth;
  /** Estimated replay lag (ms) at the last probe; null when unknown (down, starting). */
  lagMs: number | null;
  /** Why it is down, for the log and /health. */
  reason: string | null;
}

export interface ReplicaOptions {
  maxLagMs: number;
  probeMs: number;
  /** How long one probe query may take before the replica counts as down. */
  probeTimeoutMs?: number;
}

interface Sample {
  at: number;
  lsn: bigint;
}

/** A PostgreSQL LSN (`16/B374D848`) as a number that compares. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  if (high === undefined || low === undefined) throw new Error(`not an LSN: ${text}`);
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** The primary's WAL write position. Read after a COMMIT returned, it is at or past that commit's record (catalog writes commit synchronously). */
export async function currentWalLsn(primary: Knex): Promise<bigint> {
  const result = await primary.raw('select pg_current_wal_lsn()::text as lsn');
  return parseLsn((result.rows[0] as { lsn: string }).lsn);
}

const MAX_SAMPLES = 256;
/** Early probes (`probeSoon`) are at least this far apart. */
const MIN_EARLY_PROBE_GAP_MS = 50;

export class ReadReplica {
  private health: ReplicaHealth = 'starting';
  private lagMs: number | null = null;
  private reason: string | null = null;
  private replayed: bigint | null = null;
  private readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;
  private lastProbeAt = 0;
  private closed = false;

  constructor(
    /** The replica's own pool: storefront catalog reads only. */
    readonly db: Knex,
    private readonly primary: Knex,
    private readonly log: Logger,
    private readonly options: ReplicaOptions
  ) {}

  /** Probes once (so the first requests are routed on facts), then every `probeMs`. */
  async start(): Promise<void> {
    await this.probe();
    if (this.closed) return;
    this.timer = setInterval(() => void this.probe(), this.options.probeMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.probing?.catch(() => undefined);
    await this.db.destroy();
  }

  status(): ReplicaStatus {
    return { state: this.health, lagMs: this.lagMs, reason: this.reason };
  }

  /** Whether reads may go to the replica at all (it answers, and its lag is within bounds). */
  usable(): boolean {
    return this.health === 'ok';
  }

  /** Whether the replica had replayed WAL up to `lsn` when last probed. */
  hasReplayed(lsn: bigint): boolean {
    return this.replayed !== null && this.replayed >= lsn;
  }

  /** Asks for a probe now (coalesced with one running, and rate-limited), without waiting for it. */
  probeSoon(): void {
    if (this.closed || this.probing || Date.now() - this.lastProbeAt < MIN_EARLY_PROBE_GAP_MS) return;
    void this.probe();
  }

  /**
   * A read on the replica failed. When it failed for want of a connection the replica is skipped
   * from now on until a probe finds it back; either way the caller reads from the primary.
   */
  readFailed(error: unknown): void {
    const message = (error as Error).message ?? String(error);
    if (isBackendDown(error)) this.transition('down', null, `read failed: ${message}`);
    else this.log.warn({ err: { message } }, 'replica read failed; read from the primary instead');
  }

  /** One probe at a time; concurrent callers share it. */
  probe(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.probing ??= this.runProbe().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  private async runProbe(): Promise<void> {
    const timeoutMs = this.options.probeTimeoutMs ?? Math.max(500, Math.min(this.options.probeMs * 5, 2_000));
    this.lastProbeAt = Date.now();
    let primaryLsn: bigint;
    try {
      // The primary first: any position it had then, the replica must have replayed to be current.
      primaryLsn = await withinTime(currentWalLsn(this.primary), timeoutMs, 'the primary probe');
    } catch {
      // Without the primary there is nothing to compare with; the replica's state stays as it was.
      return;
    }
    const at = Date.now();
    if (this.samples.length === 0 || this.samples[this.samples.length - 1]!.lsn !== primaryLsn) {
      this.samples.push({ at, lsn: primaryLsn });
      if (this.samples.length > MAX_SAMPLES) this.samples.shift();
    }
    let row: { recovering: boolean; replayed: string | null };
    try {
      const result = await withinTime(
        Promise.resolve(this.db.raw('select pg_is_in_recovery() as recovering, pg_last_wal_replay_lsn()::text as replayed')),
        timeoutMs,
        'the replica probe'
      );
      row = result.rows[0] as typeof row;
    } catch (error) {
      this.transition('down', null, (error as Error).message);
      return;
    }
    if (this.closed) return;
    if (!row.recovering || row.replayed === null) {
      this.transition('down', null, row.recovering ? 'no WAL replayed yet' : 'not a standby (promoted?)');
      return;
    }
    const replayed = parseLsn(row.replayed);
    this.replayed = replayed;
    // Samples the replica has replayed past are of no further use.
    while (this.samples.length > 1 && this.samples[0]!.lsn <= replayed) this.samples.shift();
    const behind = this.samples.find((sample) => sample.lsn > replayed);
    const lagMs = behind ? Date.now() - behind.at : 0;
    this.transition(lagMs > this.options.maxLagMs ? 'lagging' : 'ok', lagMs, null);
  }

  private transition(state: ReplicaHealth, lagMs: number | null, reason: string | null): void {
    const previous = this.health;
    this.health = state;
    this.lagMs = lagMs;
    this.reason = reason;
    if (state === 'down') this.replayed = null;
    if (previous === state || this.closed) return;
    const fields = { replica: { from: previous, to: state, lagMs, reason } };
    if (state === 'ok') this.log.info(fields, 'read replica in use');
    else this.log.warn(fields, 'read replica skipped; storefront reads go to the primary');
  }
}
