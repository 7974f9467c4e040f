import t from 'tap';
import { loadConfig } from '../src/config.js';

t.test('every variable has a working local default', async (t) => {
  const config = loadConfig({});
  t.equal(config.port, 3000);
  t.match(config.databaseUrl, /^postgres:\/\//);
  t.equal(config.redisUrl, '', 'no Redis by default: queues and shared state run on PostgreSQL');
  t.equal(config.appUrl, 'http://localhost:3000');
  t.equal(config.env, 'development');
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
