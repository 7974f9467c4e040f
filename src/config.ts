import path from 'node:path';

export interface Config {
  env: 'development' | 'test' | 'production';
  port: number;
  /**
   * HOST: the address the HTTP server listens on. Outside production only the loopback address, so a
   * development server (seeded secrets, the queue dashboard's dev password) is not reachable from the
   * network; in production every interface, as a container or a proxy in front of it needs.
   */
  host: string;
  databaseUrl: string;
  /** Empty when REDIS_URL is unset: queues and shared state then live in PostgreSQL (src/adapters/). */
  redisUrl: string;
  /**
   * REDIS_CLUSTER_NODES (`host:port,host:port`): when set, a Redis Cluster instead of REDIS_URL's
   * single server behind the queues and shared state (src/redis.ts).
   */
  redisClusterNodes: string[];
  /** Prefix for every BullMQ and cache key; tests give each file its own. */
  redisPrefix: string;
  jwtSecret: string;
  jwtIssuer: string;
  jwtAudience: string;
  jwtTtlSec: number;
  appUrl: string;
  /** Base of links into the admin app (password reset, invites); defaults to APP_URL. */
  adminUrl: string;
  /** Lets the external system's baseUrl resolve to private addresses (local testing only). */
  allowPrivateExternalHosts: boolean;
  encryptionKey: string;
  storageDir: string;
  /** Where the built console is served from (CONSOLE_DIST_DIR; default console/dist), and where `npm start` builds it. */
  consoleDistDir: string | null;
  smtpUrl: string;
  emailFrom: string;
  stripeSecretKey: string;
  stripeWebhookSecret: string;
  stripeApiUrl: string;
  hostedDomainWebhookSecret: string;
  domainTarget: string;
  dnsServers: string[];
  /** How long one DNS query of a domain check may take. */
  dnsTimeoutMs: number;
  queueDashboardUser: string;
  queueDashboardPassword: string;
  logLevel: string;
  /** How long storefront catalog reads are cached per process; 0 turns the cache off. */
  storefrontCacheTtlMs: number;
  /** Whether store SMTP servers must present a valid TLS certificate. */
  smtpTlsRejectUnauthorized: boolean;
  /** scrypt cost; lowered only by tests to keep suites fast. */
  passwordHashCost: number;
  /** The outbox relay's safety-net poll (it wakes on NOTIFY at once). */
  outboxPollMs: number;
  /** Carts, checkout sessions and Stripe Connect. */
  checkout: { cartTtlHours: number; sessionTtlSec: number; applicationFeeBps: number; stripeWebhookDelayMs: number; taxProviderTimeoutMs: number };
  /**
   * Campaign sending: platform cap and default of a store's messages/s, recipients per batch job, SMTP
   * connections per pool, and how long a batch run's claim on its recipients lasts unless renewed
   * (a crashed worker's recipients are sent again once it lapses).
   */
  marketing: { sendRateCap: number; defaultSendRate: number; batchSize: number; smtpConnections: number; claimTimeoutMs: number };
  /** BullMQ lock on an active job (renewed at half of it) and stalled-check interval: a crashed worker's jobs run again after one to two of these. */
  jobLockMs: number;
  /**
   * Share (1-100) of the wall time a bulk job (product import, bulk edit) works while the machine is
   * busy (platform/bulk-pacing.ts); 100 never pauses. Default 25.
   */
  bulkJobBusyPercent: number;
  /** The OS nice value (0-19) the worker process (`npm run worker`) lowers itself to at start; 0 keeps it. Default 10. */
  workerNice: number;
  rateLimits: {
    authPerIpPerMinute: number;
    /** Per email and client address pair: a stranger guessing cannot lock the owner out elsewhere. */
    authPerEmailPerMinute: number;
    /** Per email from every address together: the ceiling for a distributed guess. */
    authPerEmailCeilingPerMinute: number;
    /** Ceiling for one storefront token (all its shoppers), per process. */
    storefrontPerTokenPerMinute: number;
    /** One client address with one storefront token, per process. */
    storefrontPerClientPerMinute: number;
    newsletterPerIpPerMinute: number;
    newsletterPerEmailPerHour: number;
    /** One admin API key, across every web process (Redis). */
    apiKeyPerMinute: number;
  };
  /** Proxies in front of us whose X-Forwarded-For entries are trusted (0: use the socket address). */
  trustProxy: number;
  /**
   * Outgoing webhooks: http and loopback/private receivers allowed (local testing; never in
   * production), first retry delay, in-flight cap per endpoint, in-flight cap per destination host
   * across all stores, subscriptions a store may have.
   */
  webhooks: { allowPrivateHosts: boolean; retryBaseMs: number; endpointConcurrency: number; hostConcurrency: number; maxSubscriptionsPerStore: number };
  /** The audit log (issue #36). `enabled: false` exists for the audit bench's comparison run only (BENCH_AUDIT_OFF). */
  audit: { enabled: boolean };
  /** Server-sent event streams open at once (across every process): per user or API key, and per store. */
  eventStreams: { perPrincipal: number; perStore: number };
  /** Lets store SMTP hosts resolve to loopback/private/link-local addresses (tests, local use). */
  allowPrivateSmtpHosts: boolean;
  /** PostgreSQL statement_timeout and idle_in_transaction_session_timeout for pooled connections (ms). */
  dbStatementTimeoutMs: number;
  dbIdleInTransactionTimeoutMs: number;
  /**
   * A PostgreSQL streaming replica for storefront catalog reads ('' = none: everything reads the
   * primary). Skipped while it lags more than `replicaMaxLagMs` or is down; probed every `replicaProbeMs`.
   */
  replicaDatabaseUrl: string;
  replicaMaxLagMs: number;
  replicaProbeMs: number;
  /** Bytes the per-process storefront cache may hold (serialised responses). */
  storefrontCacheMaxBytes: number;
  /**
   * Where hapi streams uploads before a handler takes them (removed after every response); '' (the
   * default): a private (0700) folder of the process's own under the system temp dir.
   */
  uploadTmpDir: string;
  /** `json` (default) or `pretty` (pino-pretty, for local runs). */
  logFormat: 'json' | 'pretty';
  /** Check every success response against its route's declared joi data schema (on in tests). */
  validateResponses: boolean;
}

const DEV_SECRET = 'dev-only-secret-change-me-dev-only-secret';

/** Secrets that production refuses to start without (and refuses when weak). */
const PRODUCTION_SECRETS = [
  'JWT_SECRET',
  'ENCRYPTION_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'HOSTED_DOMAIN_WEBHOOK_SECRET',
  'QUEUE_DASHBOARD_PASSWORD'
] as const;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function int(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number.parseInt(value, 10);
  if (!Number.isFinite(parsed)) throw new ConfigError(`expected an integer, got "${value}"`);
  return parsed;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nodeEnv = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  if (nodeEnv === 'production') assertProductionSecrets(env);
  const port = int(env.PORT, 3000);
  if (env.REDIS_CLUSTER_NODES && /[{}]/.test(env.REDIS_PREFIX ?? '')) {
    // Each queue's hash tag comes after the prefix: a brace in it would put every key in one slot.
    throw new ConfigError('REDIS_PREFIX must not contain { or } on a Redis Cluster');
  }

  return {
    env: nodeEnv,
    port,
    host: env.HOST || (nodeEnv === 'production' ? '0.0.0.0' : '127.0.0.1'),
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shopwright',
    redisUrl: env.REDIS_URL ?? '',
    redisClusterNodes: (env.REDIS_CLUSTER_NODES ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    redisPrefix: env.REDIS_PREFIX ?? 'sw',
    jwtSecret: env.JWT_SECRET ?? DEV_SECRET,
    jwtIssuer: env.JWT_ISSUER ?? 'shopwright',
    jwtAudience: env.JWT_AUDIENCE ?? 'shopwright-admin',
    jwtTtlSec: int(env.JWT_TTL_SEC, 12 * 3600),
    appUrl: (env.APP_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    adminUrl: (env.ADMIN_URL || env.APP_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    allowPrivateExternalHosts: env.ALLOW_PRIVATE_EXTERNAL_HOSTS === 'true',
    encryptionKey: env.ENCRYPTION_KEY ?? DEV_SECRET,
    storageDir: path.resolve(env.STORAGE_DIR ?? '.data/storage'),
    consoleDistDir: env.CONSOLE_DIST_DIR ? path.resolve(env.CONSOLE_DIST_DIR) : null,
    smtpUrl: env.SMTP_URL ?? '',
    emailFrom: env.EMAIL_FROM ?? 'Shopwright <no-reply@shopwright.local>',
    stripeSecretKey: env.STRIPE_SECRET_KEY ?? 'sk_test_local',
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET ?? 'whsec_local_dev_secret',
    stripeApiUrl: env.STRIPE_API_URL ?? '',
    hostedDomainWebhookSecret: env.HOSTED_DOMAIN_WEBHOOK_SECRET ?? DEV_SECRET,
    domainTarget: env.DOMAIN_TARGET ?? 'stores.shopwright.local',
    dnsServers: (env.DNS_SERVERS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    dnsTimeoutMs: int(env.DNS_TIMEOUT_MS, 3000),
    queueDashboardUser: env.QUEUE_DASHBOARD_USER ?? 'admin',
    // No password, no dashboard: it is mounted only when one is set.
    queueDashboardPassword: env.QUEUE_DASHBOARD_PASSWORD ?? '',
    logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    storefrontCacheTtlMs: Math.max(0, int(env.STOREFRONT_CACHE_TTL_MS, 10_000)),
    smtpTlsRejectUnauthorized: env.SMTP_TLS_REJECT_UNAUTHORIZED !== 'false',
    passwordHashCost: int(env.PASSWORD_HASH_COST, 16384),
    outboxPollMs: Math.max(50, int(env.OUTBOX_POLL_MS, 2_000)),
    rateLimits: {
      authPerIpPerMinute: int(env.RATE_LIMIT_AUTH_PER_IP, 300),
      authPerEmailPerMinute: int(env.RATE_LIMIT_AUTH_PER_EMAIL, 10),
      authPerEmailCeilingPerMinute: int(env.RATE_LIMIT_AUTH_PER_EMAIL_CEILING, 100),
      storefrontPerTokenPerMinute: int(env.RATE_LIMIT_STOREFRONT_PER_TOKEN, 1_200_000),
      storefrontPerClientPerMinute: int(env.RATE_LIMIT_STOREFRONT_PER_CLIENT, 3_000),
      newsletterPerIpPerMinute: int(env.RATE_LIMIT_NEWSLETTER_PER_IP, 60),
      newsletterPerEmailPerHour: int(env.RATE_LIMIT_NEWSLETTER_PER_EMAIL, 5),
      apiKeyPerMinute: Math.max(1, int(env.RATE_LIMIT_API_KEY, 1_200))
    },
    checkout: {
      cartTtlHours: Math.max(1, int(env.CART_TTL_HOURS, 7 * 24)),
      sessionTtlSec: Math.max(30, int(env.CHECKOUT_SESSION_TTL_SEC, 15 * 60)),
      applicationFeeBps: Math.max(0, int(env.STRIPE_APPLICATION_FEE_BPS, 200)),
      stripeWebhookDelayMs: Math.max(0, int(env.STRIPE_WEBHOOK_DELAY_MS, 3_000)),
      // A tax provider (Stripe Tax) slower than this fails the checkout with 503 tax_provider_unavailable.
      taxProviderTimeoutMs: Math.max(100, int(env.TAX_PROVIDER_TIMEOUT_MS, 5_000))
    },
    marketing: {
      sendRateCap: Math.max(1, int(env.MARKETING_SEND_RATE_CAP, 2_000)),
      defaultSendRate: Math.max(1, int(env.MARKETING_DEFAULT_SEND_RATE, 100)),
      batchSize: Math.max(1, int(env.MARKETING_BATCH_SIZE, 250)),
      smtpConnections: Math.max(1, int(env.MARKETING_SMTP_CONNECTIONS, 8)),
      claimTimeoutMs: Math.max(500, int(env.MARKETING_CLAIM_TIMEOUT_MS, 60_000))
    },
    jobLockMs: Math.max(1_000, int(env.JOB_LOCK_MS, 30_000)),
    bulkJobBusyPercent: Math.min(100, Math.max(1, int(env.BULK_JOB_BUSY_PERCENT, 25))),
    workerNice: Math.min(19, Math.max(0, int(env.WORKER_NICE, 10))),
    trustProxy: Math.max(0, int(env.TRUST_PROXY, 0)),
    allowPrivateSmtpHosts: env.ALLOW_PRIVATE_SMTP_HOSTS === 'true',
    webhooks: {
      allowPrivateHosts: nodeEnv !== 'production' && env.ALLOW_PRIVATE_WEBHOOK_HOSTS === 'true',
      retryBaseMs: Math.max(1, int(env.WEBHOOK_RETRY_BASE_MS, 10_000)),
      endpointConcurrency: Math.max(1, int(env.WEBHOOK_ENDPOINT_CONCURRENCY, 4)),
      hostConcurrency: Math.max(1, int(env.WEBHOOK_HOST_CONCURRENCY, 16)),
      maxSubscriptionsPerStore: Math.max(1, int(env.WEBHOOK_MAX_SUBSCRIPTIONS_PER_STORE, 20))
    },
    audit: { enabled: env.BENCH_AUDIT_OFF !== 'true' },
    eventStreams: {
      perPrincipal: Math.max(1, int(env.EVENT_STREAMS_PER_PRINCIPAL, 5)),
      perStore: Math.max(1, int(env.EVENT_STREAMS_PER_STORE, 50))
    },
    dbStatementTimeoutMs: Math.max(0, int(env.DB_STATEMENT_TIMEOUT_MS, 15_000)),
    dbIdleInTransactionTimeoutMs: Math.max(0, int(env.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS, 30_000)),
    replicaDatabaseUrl: env.REPLICA_DATABASE_URL ?? '',
    replicaMaxLagMs: Math.max(0, int(env.REPLICA_MAX_LAG_MS, 5_000)),
    replicaProbeMs: Math.max(50, int(env.REPLICA_PROBE_MS, 1_000)),
    storefrontCacheMaxBytes: Math.max(0, int(env.STOREFRONT_CACHE_MAX_BYTES, 64 * 1024 * 1024)),
    uploadTmpDir: env.UPLOAD_TMP_DIR ? path.resolve(env.UPLOAD_TMP_DIR) : '',
    logFormat: env.LOG_FORMAT === 'pretty' ? 'pretty' : 'json',
    validateResponses: env.VALIDATE_RESPONSES ? env.VALIDATE_RESPONSES === 'true' : nodeEnv === 'test'
  };
}

function assertProductionSecrets(env: NodeJS.ProcessEnv): void {
  const problems: string[] = [];
  for (const name of PRODUCTION_SECRETS) {
    const value = env[name];
    if (!value) problems.push(`${name} is required`);
    else if (value.length < 32 || value === DEV_SECRET) problems.push(`${name} is too weak (at least 32 characters)`);
  }
  if (!env.DATABASE_URL) problems.push('DATABASE_URL is required');
  if (!env.REDIS_URL && !env.REDIS_CLUSTER_NODES) problems.push('REDIS_URL is required (or REDIS_CLUSTER_NODES for a Redis Cluster)');
  if (!env.APP_URL) problems.push('APP_URL is required');
  if (problems.length > 0) throw new ConfigError(`refusing to start in production: ${problems.join('; ')}`);
}
