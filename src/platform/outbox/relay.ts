import pg from 'pg';
import type { Logger } from '../../logger.js';
import type { Queues, QueueName } from '../../jobs/queues.js';
import { registerRelay } from './wake.js';
import type { Knex } from 'knex';
import { transaction } from '../../db/transaction.js';

interface OutboxRow {
  id: string;
  queue: QueueName;
  name: string;
  jobId: string;
  payload: Record<string, unknown>;
  options: Record<string, unknown>;
  runAt: Date | null;
}

const BURST_WINDOW_MS = 5;

export interface OutboxRelayOptions {
  /** The slow poll that catches what a lost notification or a Redis outage left behind. */
  pollMs: number;
  batchSize: number;
}

/**
 * Moves committed outbox rows into BullMQ. Wakes in-process when a producer of this process
 * commits (wake.ts), on LISTEN/NOTIFY when a process without a relay produced, and on a slow poll
 * as a net (lost notifications, Redis back after an outage). Each batch is locked (SKIP LOCKED, so several relays share the
 * work), added with the row's job id, then deleted in the same transaction: if Redis refuses, the
 * rows stay for the next pass; if the process dies after the add, the next pass adds them again under
 * the same job id and BullMQ keeps one job.
 */
export class OutboxRelay {
  private listener: pg.Client | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private rerun = false;
  private stopped = true;
  private failing = false;
  private unregister: (() => void) | null = null;

  constructor(
    private readonly db: Knex,
    private readonly queues: Queues,
    private readonly databaseUrl: string,
    private readonly log: Logger,
    private readonly options: OutboxRelayOptions
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.unregister = registerRelay(this.db, this);
    await this.listen();
    this.pollTimer = setInterval(() => void this.kick(), this.options.pollMs);
    this.pollTimer.unref();
    void this.kick();
  }

  /**
   * Relays what is committed now; kicks while a pass runs coalesce into one more pass, and a pass
   * starts a few milliseconds after the first kick so that a burst of commits shares one batch.
   * Never rejects.
   */
  kick(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    this.running = new Promise((resolve) => setTimeout(resolve, BURST_WINDOW_MS)).then(() => this.drainQuietly()).finally(() => {
      this.running = null;
      if (this.rerun && !this.stopped) {
        this.rerun = false;
        void this.kick();
      }
    });
    return this.running;
  }

  /**
   * Relays every committed row now; rejects when Redis or PostgreSQL refuses (the rows stay). Rows
   * that this relay's own pass holds at the moment are skipped as locked, and relayed when that pass
   * commits: drain waits for it, so that every row committed before the call is in BullMQ when it
   * resolves.
   */
  async drain(): Promise<number> {
    const total = await this.relayAll();
    if (this.running) await this.running;
    return total;
  }

  private async relayAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const moved = await this.relayBatch();
      total += moved;
      if (moved < this.options.batchSize) return total;
    }
  }

  private async drainQuietly(): Promise<number> {
    try {
      const moved = await this.relayAll();
      if (this.failing) this.log.info('outbox relay caught up');
      this.failing = false;
      return moved;
    } catch (error) {
      if (!this.failing) this.log.warn({ err: { message: (error as Error).message } }, 'outbox relay paused; rows stay until the next pass');
      this.failing = true;
      return 0;
    }
  }

  private async relayBatch(): Promise<number> {
    return transaction(this.db, async (trx) => {
      // Losing this commit in a crash only means the rows are added again under the same job ids,
      // which BullMQ ignores: the relay need not wait for the WAL flush.
      await trx.raw('set local synchronous_commit = off');
      const rows: OutboxRow[] = await trx('outbox')
        .select('id', 'queue', 'name', 'jobId', 'payload', 'options', 'runAt')
        .orderBy('seq')
        .limit(this.options.batchSize)
        .forUpdate()
        .skipLocked();
      if (rows.length === 0) return 0;
      const byQueue = new Map<QueueName, OutboxRow[]>();
      for (const row of rows) byQueue.set(row.queue, [...(byQueue.get(row.queue) ?? []), row]);
      const now = Date.now();
      for (const [queue, queued] of byQueue) {
        await this.queues.get(queue).addBulk(
          queued.map((row) => ({
            name: row.name,
            data: row.payload,
            opts: {
              ...row.options,
              jobId: row.jobId,
              ...(row.runAt ? { delay: Math.max(0, new Date(row.runAt).getTime() - now) } : {})
            }
          }))
        );
      }
      await trx('outbox').whereIn('id', rows.map((row) => row.id)).delete();
      return rows.length;
    });
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'shopwright-outbox' });
    client.on('notification', () => void this.kick());
    client.on('error', () => this.scheduleReconnect(client));
    client.on('end', () => this.scheduleReconnect(client));
    try {
      await client.connect();
      await client.query('LISTEN outbox');
      this.listener = client;
      // Anything committed while we were not listening.
      void this.kick();
    } catch (error) {
      this.log.warn({ err: { message: (error as Error).message } }, 'outbox relay cannot listen; polling until it can');
      this.scheduleReconnect(client);
    }
  }

  private scheduleReconnect(client: pg.Client): void {
    if (this.stopped || this.reconnectTimer) return;
    if (this.listener === client) this.listener = null;
    client.end().catch(() => undefined);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.listen();
    }, 1_000);
    this.reconnectTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unregister?.();
    this.unregister = null;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.pollTimer = null;
    this.reconnectTimer = null;
    await this.running?.catch(() => undefined);
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
  }
}
