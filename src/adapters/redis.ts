import type { ConnectionOptions } from 'bullmq';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/**
 * Where Redis is: one server (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES, which wins when
 * both are set). Every connection of the process is made here from it.
 */
export interface RedisTarget {
  url: string;
  /** `host:port` (or `redis://user:pass@host:port`, `rediss://…`) seed nodes; empty: no cluster. */
  clusterNodes: string[];
}

/** A connection to either: the adapters use only commands both answer the same way. */
export type RedisClient = Redis | Cluster;

export const redisTargetConfigured = (target: RedisTarget): boolean => target.clusterNodes.length > 0 || target.url !== '';
export const isCluster = (target: RedisTarget): boolean => target.clusterNodes.length > 0;

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
 * The seed nodes of REDIS_CLUSTER_NODES and the options every node connection shares: credentials
 * and TLS come from the first entry that gives them (a cluster has no databases besides 0).
 */
export function clusterSeeds(nodes: string[]): { startupNodes: Array<{ host: string; port: number }>; redisOptions: RedisOptions } {
  const parsed = nodes.map((node) => redisOptions(node.includes('://') ? node : `redis://${node}`));
  const withCredentials = parsed.find((options) => options.password || options.username) ?? parsed[0]!;
  return {
    startupNodes: parsed.map(({ host, port }) => ({ host: host!, port: port! })),
    redisOptions: {
      username: withCredentials.username,
      password: withCredentials.password,
      tls: parsed.some((options) => options.tls) ? {} : undefined
    }
  };
}

function cluster(target: RedisTarget, options: ClusterOptions, nodeOptions: RedisOptions): Cluster {
  const seeds = clusterSeeds(target.clusterNodes);
  return new Cluster(seeds.startupNodes, {
    // After a failover the slots move: refresh the map at once on MOVED, and now and then anyway.
    slotsRefreshInterval: 5_000,
    clusterRetryStrategy: (times) => Math.min(times * 200, 2_000),
    ...options,
    redisOptions: { ...seeds.redisOptions, ...nodeOptions }
  });
}

/**
 * A connection for request handlers: commands fail at once while Redis is away (so the API answers
 * 503 instead of hanging), and it keeps reconnecting in the background.
 */
export function createFailFastRedis(target: RedisTarget): RedisClient {
  const failFast = { maxRetriesPerRequest: 1, connectTimeout: 2_000 };
  if (isCluster(target)) return cluster(target, { enableOfflineQueue: false }, failFast);
  return new Redis({
    ...redisOptions(target.url),
    ...failFast,
    enableOfflineQueue: false,
    retryStrategy: (times) => Math.min(times * 200, 2_000)
  });
}

/** A connection for blocking consumers (subscribers): waits through outages. */
export function createBlockingRedis(target: RedisTarget, overrides: { failFast?: boolean } = {}): RedisClient {
  const nodeOptions: RedisOptions = overrides.failFast ? { maxRetriesPerRequest: 1 } : { maxRetriesPerRequest: null };
  const offlineQueue = { enableOfflineQueue: !overrides.failFast };
  if (isCluster(target)) return cluster(target, offlineQueue, nodeOptions);
  return new Redis({ ...redisOptions(target.url), enableReadyCheck: true, ...nodeOptions, ...offlineQueue });
}

/**
 * What BullMQ's workers and QueueEvents connect with. For one server, options (BullMQ makes and
 * closes its connections). For a cluster BullMQ needs a Cluster instance: a lazy one that never
 * connects itself, which BullMQ duplicates for each blocking consumer (and closes the copies);
 * the caller disconnects it at the end.
 */
export function bullmqConnection(target: RedisTarget): ConnectionOptions {
  if (isCluster(target)) return cluster(target, { lazyConnect: true }, { maxRetriesPerRequest: null }) as unknown as ConnectionOptions;
  return { ...redisOptions(target.url), maxRetriesPerRequest: null, enableReadyCheck: true } as ConnectionOptions;
}

export async function waitForReady(redis: RedisClient, timeoutMs = 5_000): Promise<void> {
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
