import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createBlockingRedisOptions } from '../../redis.js';

interface Entry {
  value: unknown;
  expiresAt: number;
}

/**
 * A small in-process cache for hot reads (storefront token → store) with cross-process
 * invalidation over Redis pub/sub. Invalidation is synchronous in the process that made the
 * change, so a revoked token is refused at once there, and within milliseconds elsewhere; the
 * TTL bounds staleness if a message is ever lost.
 */
export class LocalCache {
  private readonly entries = new Map<string, Entry>();
  private subscriber: Redis | null = null;
  private publisher: Redis | null = null;

  constructor(
    private readonly redisUrl: string,
    private readonly channel: string,
    private readonly log: Logger,
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000
  ) {}

  async start(): Promise<void> {
    this.subscriber = new Redis(createBlockingRedisOptions(this.redisUrl));
    this.publisher = new Redis({ ...createBlockingRedisOptions(this.redisUrl), maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.subscriber.on('error', () => undefined);
    this.publisher.on('error', () => undefined);
    this.subscriber.on('message', (_channel, key: string) => this.entries.delete(key));
    // A reconnect may have missed messages: drop everything rather than serve stale entries.
    this.subscriber.on('ready', () => this.entries.clear());
    await this.subscriber.subscribe(this.channel);
  }

  get<T>(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt < Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value as T;
  }

  set(key: string, value: unknown): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
  }

  async invalidate(...keys: string[]): Promise<void> {
    for (const key of keys) this.entries.delete(key);
    if (!this.publisher) return;
    try {
      await Promise.all(keys.map((key) => this.publisher!.publish(this.channel, key)));
    } catch (error) {
      this.log.warn({ err: { message: (error as Error).message } }, 'cache invalidation not published');
    }
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    this.publisher?.disconnect();
    this.entries.clear();
  }
}
