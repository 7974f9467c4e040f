import type { ConnectionOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';

export function redisOptions(redisUrl: string): RedisOptions {
  const url = new URL(redisUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username || undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    tls: url.protocol === 'rediss:' ? {} : undefined
  };
}

/**
 * A connection for request handlers: commands fail at once while Redis is away (so the API answers
 * 503 instead of hanging), and it keeps reconnecting in the background.
 */
export function createFailFastRedis(redisUrl: string): Redis {
  return new Redis({
    ...redisOptions(redisUrl),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000)
  });
}

/** A connection for blocking consumers (BullMQ workers, subscribers): waits through outages. */
export function createBlockingRedisOptions(redisUrl: string): RedisOptions {
  return { ...redisOptions(redisUrl), maxRetriesPerRequest: null, enableReadyCheck: true };
}

/** The same options typed for BullMQ (its own RedisOptions interface differs only in typings). */
export function bullmqConnection(redisUrl: string): ConnectionOptions {
  return createBlockingRedisOptions(redisUrl) as ConnectionOptions;
}

export async function waitForReady(redis: Redis, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error('Redis did not become ready in time'));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}
