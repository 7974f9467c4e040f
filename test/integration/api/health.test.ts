import t from 'tap';
import { buildApp } from '../../helpers/app.js';
import { needsRedis, redisConfigured, redisOf } from '../../helpers/backends.js';

t.test('GET /health probes the database and the queue store, and names the backends in use', async (t) => {
  const app = await buildApp(t);
  const response = await app.request({ url: '/health' });
  t.equal(response.status, 200);
  const kind = redisConfigured ? 'redis' : 'postgres';
  t.same(response.body, {
    success: true,
    data: {
      status: 'ok',
      database: 'connected',
      queue: 'connected',
      ...(redisConfigured ? { redis: 'connected' } : {}),
      backends: { database: 'postgres', queue: kind, rateLimits: kind, cacheInvalidation: kind, sendRate: kind, catalogVersion: kind }
    },
    meta: {}
  });
  t.ok(response.headers['x-request-id'], 'request id header');
});

t.test('GET /health answers 503 degraded when the database is down', async (t) => {
  const app = await buildApp(t);
  await app.ctx.db.destroy();
  const { createDb } = await import('../../../src/db/knex.js');
  // A pool pointed at a port where nothing listens stands in for a dead database.
  app.ctx.db = createDb('postgres://postgres@127.0.0.1:1/none', { max: 1 });
  const response = await app.request({ url: '/health' });
  t.equal(response.status, 503);
  t.equal(response.body.data.status, 'degraded');
  t.equal(response.body.data.database, 'disconnected');
  t.equal(response.body.data.queue, 'connected');
  t.equal(response.body.error.code, 'service_unavailable');
});

t.test('GET /health answers 503 when redis is down', { skip: needsRedis }, async (t) => {
  const app = await buildApp(t);
  redisOf(app.ctx).disconnect();
  const response = await app.request({ url: '/health' });
  t.equal(response.status, 503);
  t.equal(response.body.data.redis, 'disconnected');
  t.equal(response.body.data.queue, 'disconnected');
  t.equal(response.body.data.database, 'connected');
});
