import t from 'tap';
import { loadConfig } from '../../src/config.js';

t.test('every variable has a working local default', async (t) => {
  const config = loadConfig({});
  t.equal(config.port, 3000);
  t.match(config.databaseUrl, /^postgres:\/\//);
  t.equal(config.redisUrl, '', 'no Redis by default: queues and shared state run on PostgreSQL');
  t.equal(config.appUrl, 'http://localhost:3000');
  t.equal(config.env, 'development');
});

/**
 * Issue #31 (9): a development server listened on every interface, so anyone on the network could
 * reach it (with its seeded development secrets). Outside production it listens on the loopback
 * address unless HOST says otherwise; production keeps every interface (containers, proxies).
 */
t.test('the server listens on 127.0.0.1 outside production, on every interface in production, HOST decides', async (t) => {
  t.equal(loadConfig({}).host, '127.0.0.1', 'development');
  t.equal(loadConfig({ NODE_ENV: 'test' }).host, '127.0.0.1', 'test');
  t.equal(loadConfig({ HOST: '0.0.0.0' }).host, '0.0.0.0', 'HOST opens a development server to the network on purpose');
  t.equal(loadConfig({ HOST: '' }).host, '127.0.0.1', 'an empty HOST is the default, not "every interface"');
  const strong = 'x'.repeat(40);
  const production = {
    NODE_ENV: 'production',
    JWT_SECRET: strong,
    ENCRYPTION_KEY: strong,
    STRIPE_WEBHOOK_SECRET: strong,
    HOSTED_DOMAIN_WEBHOOK_SECRET: strong,
    QUEUE_DASHBOARD_PASSWORD: strong,
    DATABASE_URL: 'postgres://db/x',
    REDIS_URL: 'redis://r:6379',
    APP_URL: 'https://shop.example'
  };
  t.equal(loadConfig(production).host, '0.0.0.0', 'production');
  t.equal(loadConfig({ ...production, HOST: '10.0.0.5' }).host, '10.0.0.5', 'HOST in production');
});

t.test('production refuses missing or weak secrets', async (t) => {
  t.throws(() => loadConfig({ NODE_ENV: 'production' }), /refusing to start in production: JWT_SECRET is required/);
  const strong = 'x'.repeat(40);
  const complete = {
    NODE_ENV: 'production',
    JWT_SECRET: strong,
    ENCRYPTION_KEY: strong,
    STRIPE_WEBHOOK_SECRET: strong,
    HOSTED_DOMAIN_WEBHOOK_SECRET: strong,
    QUEUE_DASHBOARD_PASSWORD: strong,
    DATABASE_URL: 'postgres://db/x',
    REDIS_URL: 'redis://r:6379',
    APP_URL: 'https://shop.example/'
  };
  t.equal(loadConfig(complete).appUrl, 'https://shop.example');
  t.throws(() => loadConfig({ ...complete, JWT_SECRET: 'short' }), /JWT_SECRET is too weak/);
  t.throws(() => loadConfig({ ...complete, ENCRYPTION_KEY: '' }), /ENCRYPTION_KEY is required/);
  t.throws(() => loadConfig({ ...complete, PORT: 'abc' }), /expected an integer/);
  const { REDIS_URL: _redis, ...withoutRedis } = complete;
  t.throws(() => loadConfig(withoutRedis), /REDIS_URL is required/, 'production never falls back to the PostgreSQL queue backend');
  t.equal(loadConfig({ REDIS_URL: 'redis://r:6379' }).redisUrl, 'redis://r:6379', 'outside production REDIS_URL selects Redis');
  t.same(loadConfig({ ...withoutRedis, REDIS_CLUSTER_NODES: 'r1:7000, r2:7000,' }).redisClusterNodes, ['r1:7000', 'r2:7000'], 'a Redis Cluster satisfies production instead of REDIS_URL');
  t.same(loadConfig({}).redisClusterNodes, [], 'no cluster by default');
  t.throws(() => loadConfig({ REDIS_CLUSTER_NODES: 'r1:7000', REDIS_PREFIX: 'sw{x}' }), /must not contain/, 'a brace in the prefix would hide the queues\' hash tags');
});
