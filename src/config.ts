import path from 'node:path';

export interface Config {
  env: 'development' | 'test' | 'production';
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string;
  /** Prefix for every BullMQ and cache key; tests give each file its own. */
  redisPrefix: string;
  jwtSecret: string;
  jwtIssuer: string;
  jwtAudience: string;
  jwtTtlSec: number;
  appUrl: string;
  /** Base of links into the admin app (password reset, invites); defaults to APP_URL. */
  adminUrl: string;
  encryptionKey: string;
  storageDir: string;
  smtpUrl: string;
  emailFrom: string;
  stripeSecretKey: string;
  stripeWebhookSecret: string;
  stripeApiUrl: string;
  hostedDomainWebhookSecret: string;
  domainTarget: string;
  dnsServers: string[];
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
  rateLimits: {
    authPerIpPerMinute: number;
    authPerEmailPerMinute: number;
    /** Ceiling for one storefront token (all its shoppers), per process. */
    storefrontPerTokenPerMinute: number;
    /** One client address with one storefront token, per process. */
    storefrontPerClientPerMinute: number;
  };
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

export class ConfigError extends Error {}

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

  return {
    env: nodeEnv,
    port,
    host: env.HOST ?? '0.0.0.0',
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shopwright',
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisPrefix: env.REDIS_PREFIX ?? 'sw',
    jwtSecret: env.JWT_SECRET ?? DEV_SECRET,
    jwtIssuer: env.JWT_ISSUER ?? 'shopwright',
    jwtAudience: env.JWT_AUDIENCE ?? 'shopwright-admin',
    jwtTtlSec: int(env.JWT_TTL_SEC, 12 * 3600),
    appUrl: (env.APP_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    adminUrl: (env.ADMIN_URL ?? env.APP_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    encryptionKey: env.ENCRYPTION_KEY ?? DEV_SECRET,
    storageDir: path.resolve(env.STORAGE_DIR ?? '.data/storage'),
    smtpUrl: env.SMTP_URL ?? '',
    emailFrom: env.EMAIL_FROM ?? 'Shopwright <no-reply@shopwright.local>',
    stripeSecretKey: env.STRIPE_SECRET_KEY ?? 'sk_test_local',
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET ?? 'whsec_local_dev_secret',
    stripeApiUrl: env.STRIPE_API_URL ?? '',
    hostedDomainWebhookSecret: env.HOSTED_DOMAIN_WEBHOOK_SECRET ?? DEV_SECRET,
    domainTarget: env.DOMAIN_TARGET ?? 'stores.shopwright.local',
    dnsServers: (env.DNS_SERVERS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    queueDashboardUser: env.QUEUE_DASHBOARD_USER ?? 'admin',
    queueDashboardPassword: env.QUEUE_DASHBOARD_PASSWORD ?? DEV_SECRET,
    logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    storefrontCacheTtlMs: Math.max(0, int(env.STOREFRONT_CACHE_TTL_MS, 10_000)),
    smtpTlsRejectUnauthorized: env.SMTP_TLS_REJECT_UNAUTHORIZED !== 'false',
    passwordHashCost: int(env.PASSWORD_HASH_COST, 16384),
    outboxPollMs: Math.max(50, int(env.OUTBOX_POLL_MS, 2_000)),
    rateLimits: {
      authPerIpPerMinute: int(env.RATE_LIMIT_AUTH_PER_IP, 300),
      authPerEmailPerMinute: int(env.RATE_LIMIT_AUTH_PER_EMAIL, 10),
      storefrontPerTokenPerMinute: int(env.RATE_LIMIT_STOREFRONT_PER_TOKEN, 1_200_000),
      storefrontPerClientPerMinute: int(env.RATE_LIMIT_STOREFRONT_PER_CLIENT, 3_000)
    }
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
  if (!env.REDIS_URL) problems.push('REDIS_URL is required');
  if (!env.APP_URL) problems.push('APP_URL is required');
  if (problems.length > 0) throw new ConfigError(`refusing to start in production: ${problems.join('; ')}`);
}
