import { channel } from 'node:diagnostics_channel';
import { createBackends, type Backends } from './adapters/index.js';
import { createMail, type Mail } from './adapters/mail/index.js';
import { createStripeGateway, type StripeGateway } from './adapters/payments/index.js';
import { createStorage, type ObjectStorage } from './adapters/storage/index.js';
import type { Config } from './config.js';
import { createDb, type Db } from './db/knex.js';
import { ReadReplica } from './db/read-replica.js';
import { Queues } from './jobs/queues.js';
import { createLogger, knexLog, type Logger } from './logger.js';
import { LocalCache } from './platform/cache/local-cache.js';
import { OutboxRelay } from './platform/outbox/relay.js';
import { registerPool } from './platform/outbox/wake.js';
import type { ModuleContribution } from './platform/modules/contribution.js';
import { securePrivateRoot } from './adapters/storage/private-files.js';

/** An installed module (src/services/modules/index.ts lists them): what it offers the others. */
export type Module = ModuleContribution<AppContext>;

/**
 * Everything a service needs from the outside world, built once per process. Services take it as
 * their first argument; nothing reaches for module-level singletons, so tests can build several.
 */
export interface AppContext {
  config: Config;
  log: Logger;
  db: Db;
  /** Queues and the state shared between processes, on Redis or PostgreSQL (src/adapters/). */
  backends: Backends;
  queues: Queues;
  cache: LocalCache;
  /** The read replica (REPLICA_DATABASE_URL) for storefront catalog reads, or null; services/catalog/replica-routing.ts decides per read. */
  replica: ReadReplica | null;
  /** Moves committed job intents (the outbox) into BullMQ; runs in every process that produces jobs. */
  outbox: OutboxRelay;
  /** Vendor SDKs behind ports (src/adapters/), chosen once here: Stripe, mail transports, file storage. */
  stripe: StripeGateway;
  mail: Mail;
  storage: ObjectStorage;
  /** The installed modules, handed over by the process (services ask them through services/modules/registry.ts). */
  modules: readonly Module[];
}

/**
 * The app's primary pool, announced once built: test machinery subscribes (test/setup/statement-log.ts
 * logs its statements for the Citus check); with no subscriber, nothing happens.
 */
const poolChannel = channel('shopwright:db-pool');

export interface ContextOptions {
  /** Usually MODULES from services/modules/index.ts: passed in, because those modules import this file. */
  modules: readonly Module[];
  log?: Logger;
  dbPoolMax?: number;
  /** How long an idle pooled connection is kept (knex's default: 30 s). */
  dbPoolIdleMs?: number;
  /** false: no read-replica pool or probe (a worker process serves no storefront reads). Default true. */
  readReplica?: boolean;
}

export function createContext(config: Config, options: ContextOptions): AppContext {
  const log = options.log ?? createLogger(config.logLevel, config.logFormat);
  const db = createDb(
    config.databaseUrl,
    { max: options.dbPoolMax ?? 10, idleMs: options.dbPoolIdleMs },
    { statementTimeoutMs: config.dbStatementTimeoutMs, idleInTransactionTimeoutMs: config.dbIdleInTransactionTimeoutMs },
    knexLog(log)
  );
  const replica = config.replicaDatabaseUrl && options.readReplica !== false ? createReplica(config, db, log, options.dbPoolMax ?? 10) : null;
  registerPool(db);
  if (poolChannel.hasSubscribers) poolChannel.publish({ db });
  const backends = createBackends(config, db, log);
  const queues = new Queues(backends.queue, log);
  const cache = new LocalCache(backends.invalidation, log, config.storefrontCacheTtlMs);
  const outbox = new OutboxRelay(db, queues, config.databaseUrl, log, { pollMs: config.outboxPollMs, batchSize: 500 });
  const adapters = { stripe: createStripeGateway(config), mail: createMail(config), storage: createStorage(config) };
  return { config, log, db, replica, backends, queues, cache, outbox, ...adapters, modules: options.modules };
}

/**
 * Connects what needs connecting before the first request or job: the cache's pub/sub, the
 * backends (a fail-fast Redis connection refuses commands until it is ready), and the outbox relay.
 * Redis being down at boot is logged, not fatal: requests that need it answer 503 until it is back.
 */
export async function openContext(ctx: AppContext): Promise<void> {
  await Promise.all([
    ctx.cache.start(),
    ctx.backends.open(),
    // Mail, exports and uploads live under it: private to the service's user, older files included.
    securePrivateRoot(ctx.config.storageDir, ctx.log)
  ]);
  await ctx.outbox.start();
  await ctx.replica?.start();
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.outbox.stop();
  await ctx.replica?.close();
  await ctx.queues.close();
  await ctx.cache.close();
  await ctx.backends.close();
  await ctx.db.destroy();
}

function createReplica(config: Config, primary: Db, log: Logger, poolMax: number): ReadReplica {
  const timeouts = { statementTimeoutMs: config.dbStatementTimeoutMs, idleInTransactionTimeoutMs: config.dbIdleInTransactionTimeoutMs };
  const pool = createDb(config.replicaDatabaseUrl, { max: poolMax }, timeouts, knexLog(log));
  return new ReadReplica(pool, primary, log, { maxLagMs: config.replicaMaxLagMs, probeMs: config.replicaProbeMs });
}
