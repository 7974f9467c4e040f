import type { Logger } from 'pino';
import { createBlockingRedis, type RedisClient, type RedisTarget } from '../redis.js';

/**
 * Redis pub/sub: a subscriber connection (ioredis re-subscribes on reconnect) and a publisher. On a
 * Redis Cluster, PUBLISH reaches the subscribers of every node (the cluster bus forwards it), and
 * ioredis's Cluster subscribes through one node and moves the subscription when that node goes.
 * One channel and one key per command: nothing crosses slots.
 */
export class RedisInvalidationBus {
  private subscriber: RedisClient | null = null;
  private publisher: RedisClient | null = null;

  constructor(
    private readonly target: RedisTarget,
    private readonly channel: string,
    private readonly log: Logger
  ) {}

  start(onMessage: (key: string) => void, onResubscribed: () => void): void {
    this.subscriber = createBlockingRedis(this.target);
    this.publisher = createBlockingRedis(this.target, { failFast: true });
    this.subscriber.on('error', () => undefined);
    this.publisher.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, key: string) => onMessage(key));
    this.subscriber.on('ready', onResubscribed);
    // A Cluster moves its subscription to another node by itself when its node leaves, without a new
    // 'ready': whatever was published meanwhile may be lost, so the caches go too.
    if (this.subscriber.isCluster) this.subscriber.on('-node', onResubscribed);
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
