import { getDashboard } from '../../services/stores.js';
import { ANY_MEMBER } from '../../services/roles.js';
import { envelopeJson } from '../json-body.js';
import { tenantOf } from '../plugins/auth.js';
import { successBody } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { dashboardResponse } from './schemas.js';

export const getStore = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/store',
  options: {
    description: 'Store dashboard: settings, stats, setup progress, recent orders, open issues',
    tags: ['store'],
    response: { status: { 200: dashboardResponse } },
    // Concurrent requests share one dashboard (getDashboard), and so its JSON: serialised once.
    handler: async (request, h) => {
      const dashboard = await getDashboard(request.server.app.ctx, tenantOf(request).storeId);
      return envelopeJson(h, dashboard, () => JSON.stringify(successBody(dashboard)));
    }
  }
});
