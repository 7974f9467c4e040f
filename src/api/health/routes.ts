import { publicHandler } from '../handler.js';
import { publicRoute } from '../route-helpers.js';
import { checkHealth } from '../../platform/health.js';
import { healthResponse } from './schemas.js';

export const getHealth = publicRoute({
  method: 'GET',
  path: '/health',
  options: {
    description: 'Service health: probes the database and the queue store (Redis or PostgreSQL) and names the backends in use',
    tags: ['health'],
    response: { status: { 200: healthResponse } },
    handler: publicHandler(async ({ ctx, h }) => {
      const health = await checkHealth(ctx);
      const { healthy: _healthy, ...data } = health;
      if (health.healthy) return data;
      return h
        .response({ success: false, data, error: { code: 'service_unavailable', message: 'A backing service is unavailable' }, meta: {} })
        .code(503);
    })
  }
});
