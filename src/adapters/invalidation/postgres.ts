import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../db/knex.js';

const MAX_BACKOFF_MS = 2_000;

/**
 * PostgreSQL LISTEN/NOTIFY: one dedicated connection per process listens (reconnecting with a
 * backoff when it drops, then reporting the resubscription); publishing is a `pg_notify` through
 * the ordinary pool. The channel is a digest of the configured name: identifiers stop at 63 bytes.
 */
export class PostgresInvalidationBus {
  private client: pg.Client | null = null;
  private closed = false;
  private attempts = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly pgChannel: string;

  constructor(
    private readonly db: Db,
    private readonly databaseUrl: string,
    channel: string,
    private readonly log: Logger
  ) {
    this.pgChannel = `sw_invalidate_${createHash('sha256').update(channel).digest('hex').slice(0, 24)}`;
  }

  start(onMessage: (key: string) => void, onResubscribed: () => void): void {
    void this.connect(onMessage, onResubscribed);
  }

  private async connect(onMessage: (key: string) => void, onResubscribed: () => void): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'shopwright:invalidation', keepAlive: true });
    let lost = false;
    const retry = () => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.removeAllListeners('notification');
      client.removeAllListeners('end');
      client.end().catch(() => undefined);
      if (this.closed || this.retryTimer) return;
      this.attempts += 1;
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        void this.connect(onMessage, onResubscribed);
      }, Math.min(this.attempts * 200, MAX_BACKOFF_MS));
      this.retryTimer.unref();
    };
    client.on('error', (error) => {
      this.log.warn({ err: { message: error.message } }, 'cache invalidation listener lost, reconnecting');
      retry();
    });
    client.on('end', retry);
    client.on('notification', (message) => {
      if (message.channel === this.pgChannel && message.payload !== undefined) onMessage(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.pgChannel}"`);
    } catch (error) {
      this.log.warn({ err: { message: (error as Error).message } }, 'cache invalidation subscription failed');
      retry();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.attempts = 0;
    onResubscribed();
  }

  async publish(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db.raw('SELECT pg_notify(?, k) FROM unnest(?::text[]) AS k', [this.pgChannel, keys]);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }
}
