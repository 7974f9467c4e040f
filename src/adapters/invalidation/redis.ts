import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createBlockingRedisOptions } from '../../redis.js';

/** Redis pub/sub: a subscriber connection (ioredis re-subscribes on reconnect) and a publisher. */
export class RedisInvalidationBus {
  private subscriber: Redis | null = null;
  private publisher: Redis | null = null;

  constructor(
    private readonly redisUrl: string,
    private readonly channel: string,
    private readonly log: Logger
  ) {}

  start(onMessage: (key: string) => void, onResubscribed: () => void): void {
    this.subscriber = new Redis(createBlockingRedisOptions(this.redisUrl));
    this.publisher = new Redis({ ...createBlockingRedisOptions(this.redisUrl), maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.subscriber.on('error', () => undefined);
    this.publisher.on('error', () => undefined);
    this.subscriber.on('message', (_channel, key: string) => onMessage(key));
    this.subscriber.on('ready', onResubscribed);
    this.subscriber.subscribe(this.channel).catch((error: Error) => this.log.warn({ err: { message: error.message } }, 'cache invalidation subscription failed'));
  }

  async publish(keys: string[]): Promise<void> {
    if (!this.publisher) return;
    await Promise.all(keys.map((key) => this.publisher!.publish(this.channel, key)));
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    this.publisher?.disconnect();
  }
}
