import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Server } from '@hapi/hapi';
import { Cluster, Redis } from 'ioredis';
import { createServer } from '../../src/api/server.js';
import { loadConfig } from '../../src/config.js';
import { closeContext, createContext, openContext, type AppContext } from '../../src/context.js';
import { MODULES } from '../../src/installed-modules.js';
import type { QueueName } from '../../src/jobs/queues.js';
import { startWorkers, type WorkerPool } from '../../src/workers/run-workers.js';
import { clusterSeeds, type RedisTarget } from '../../src/adapters/redis.js';
import { createTestDatabase, releaseTestDatabase } from './databases.js';
import { checkResponsesAgainstDocument } from './openapi-contract.js';

export interface Teardownable {
  teardown(fn: () => unknown): void;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  raw: string;
}

export interface RequestOptions {
  method?: string;
  url: string;
  payload?: unknown;
  token?: string;
  storeId?: string;
  storefrontToken?: string;
  headers?: Record<string, string>;
}

export interface TestApp {
  ctx: AppContext;
  server: Server;
  workers: WorkerPool | null;
  request<T = any>(options: RequestOptions): Promise<ApiResponse<T>>;
  /** Starts the workers later in a test (e.g. after enqueuing). */
  startWorkers(queues?: QueueName[]): Promise<WorkerPool>;
}

/**
 * One isolated app per test file: its own database (cloned from the migrated template), its own
 * Redis key prefix (when REDIS_URL is set; unset, queues and shared state live in that database), the real hapi server (requests through `server.inject`, the full lifecycle),
 * and optionally the real BullMQ workers in-process.
 */
export async function buildApp(
  t: Teardownable,
  options: { workers?: boolean | QueueName[]; env?: Record<string, string>; listen?: boolean; contract?: boolean } = {}
): Promise<TestApp> {
  const name = `sw_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = await createTestDatabase(name);
  const storageDir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-test-'));
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: `swt:${name}`,
    STORAGE_DIR: storageDir,
    PASSWORD_HASH_COST: '1024',
    APP_URL: 'http://shop.test',
    SMTP_URL: '',
    // Test SMTP servers listen on 127.0.0.1; production refuses such hosts.
    ALLOW_PRIVATE_SMTP_HOSTS: 'true',
    // Bulk jobs run flat out: a test file shares a loaded machine with others, where pacing would only
    // slow it (the pacing's own tests hand the job a pacer that sees a busy machine).
    BULK_JOB_BUSY_PERCENT: '100',
    ...options.env
  });
  // Idle connections go back after 1 s: a file's shared app keeps its pool while a test builds an
  // app of its own, and three files run at once on a server of 100 connections.
  const ctx = createContext(config, { modules: MODULES, dbPoolMax: 20, dbPoolIdleMs: 1_000 });
  await openContext(ctx);
  const server = await createServer(ctx, { port: 0, host: '127.0.0.1' });
  // Every response a test receives must be one the OpenAPI document describes (helpers/openapi-contract.ts).
  if (options.contract !== false) checkResponsesAgainstDocument(server);
  if (options.listen) await server.start();
  else await server.initialize();

  const pools: WorkerPool[] = [];
  const app: TestApp = {
    ctx,
    server,
    workers: null,
    async startWorkers(queues) {
      const pool = await startWorkers(ctx, queues);
      pools.push(pool);
      return pool;
    },
    async request({ method = 'GET', url, payload, token, storeId, storefrontToken, headers = {} }) {
      const allHeaders: Record<string, string> = { ...headers };
      if (token) allHeaders.authorization = `Bearer ${token}`;
      if (storeId) allHeaders['x-store-id'] = storeId;
      if (storefrontToken) allHeaders['x-storefront-token'] = storefrontToken;
      const response = await server.inject({
        method,
        url: url.startsWith('/api/') ? url : `/api/v1${url}`,
        payload: payload as object | string | undefined,
        headers: allHeaders
      });
      let body: unknown = response.payload;
      try {
        body = JSON.parse(response.payload);
      } catch {
        // not JSON (CSV downloads, media)
      }
      return { status: response.statusCode, headers: response.headers as ApiResponse["headers"], body: body as any, raw: response.payload };
    }
  };
  if (options.workers) app.workers = await app.startWorkers(options.workers === true ? undefined : options.workers);

  t.teardown(async () => {
    for (const pool of pools) await pool.close();
    await server.stop({ timeout: 1_000 });
    await closeContext(ctx);
    await deleteRedisKeys({ url: config.redisUrl, clusterNodes: config.redisClusterNodes }, `${config.redisPrefix}:*`);
    await releaseTestDatabase(name);
    await rm(storageDir, { recursive: true, force: true });
  });
  return app;
}

/**
 * Removes a test's keys; nothing to do when the run has no Redis. On a cluster every master is
 * scanned, and keys are deleted one by one (one DEL of many keys would cross slots).
 */
export async function deleteRedisKeys(target: RedisTarget | string, pattern: string): Promise<void> {
  const { url, clusterNodes } = typeof target === 'string' ? { url: target, clusterNodes: [] } : target;
  if (clusterNodes.length > 0) {
    const seeds = clusterSeeds(clusterNodes);
    const cluster = new Cluster(seeds.startupNodes, { redisOptions: seeds.redisOptions });
    try {
      await new Promise<void>((resolve, reject) => {
        cluster.once('ready', resolve);
        cluster.once('error', reject);
      });
      for (const node of cluster.nodes('master')) await deleteMatching(node, pattern, (keys) => Promise.all(keys.map((key) => node.unlink(key))));
    } finally {
      cluster.disconnect();
    }
    return;
  }
  if (!url) return;
  const redis = new Redis(url);
  try {
    await deleteMatching(redis, pattern, (keys) => redis.del(...keys));
  } finally {
    redis.disconnect();
  }
}

async function deleteMatching(redis: Redis, pattern: string, remove: (keys: string[]) => Promise<unknown>): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await remove(keys);
  } while (cursor !== '0');
}

let counter = 0;

/** A unique suffix for emails and slugs within a test file. */
export function unique(label = 'x'): string {
  counter += 1;
  return `${label}${counter}${randomBytes(3).toString('hex')}`;
}

export interface Owner {
  user: { id: string; email: string };
  store: { id: string; name: string; slug: string };
  accessToken: string;
  storefrontToken: string;
  email: string;
  password: string;
}

/** Signs up an operator through the API and returns what the response gave. */
export async function signupOwner(app: TestApp, overrides: Record<string, string> = {}): Promise<Owner> {
  const tag = unique('o');
  const payload = {
    firstName: 'Olivia',
    lastName: 'Owner',
    email: `${tag}@example.com`,
    password: 'correct horse battery',
    storeName: `Store ${tag}`,
    storeSlug: `store-${tag}`,
    ...overrides
  };
  const response = await app.request({ method: 'POST', url: '/auth/signup', payload });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${response.raw}`);
  return { ...response.body.data, email: payload.email, password: payload.password };
}

/** Adds a member with a role directly (team invites belong to a later module). */
export async function addMember(app: TestApp, storeId: string, role: 'owner' | 'admin' | 'staff') {
  const other = await signupOwner(app);
  await app.ctx.db('memberships').insert({ storeId, userId: other.user.id, role });
  return other;
}
