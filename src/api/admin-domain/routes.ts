import { getDomain, requestDomainCheck, startDomainOnboarding } from '../../services/domains/index.js';
import { ADMINS } from '../../platform/roles.js';
import { withMeta } from '../plugins/envelope.js';
import { tenantOf } from '../plugins/auth.js';
import { adminRoute } from '../route-helpers.js';
import { domainCheckResponse, domainResponse, onboardingPayload } from './schemas.js';

export const domainOnboardingRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/domain/onboarding-link',
  options: {
    description: 'Connect a custom hostname: the CNAME (to DOMAIN_TARGET) and TXT (ownership token) records to create; 409 if another store has it',
    tags: ['domain'],
    plugins: { openapi: { errors: [409] } },
    validate: { payload: onboardingPayload },
    response: { status: { 200: domainResponse } },
    handler: async (request) => startDomainOnboarding(request.server.app.ctx, tenantOf(request).storeId, (request.payload as { hostname: string }).hostname)
  }
});

export const getDomainRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/domain',
  options: {
    description: "The store's custom domain with its status and the records it needs; 404 before one is connected",
    tags: ['domain'],
    plugins: { openapi: { errors: [404] } },
    response: { status: { 200: domainResponse } },
    handler: async (request) => getDomain(request.server.app.ctx, tenantOf(request).storeId)
  }
});

export const domainCheckRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/domain/check',
  options: {
    description: 'Queue a DNS check of the records: 202 { domain, job }; the job sets verified or failed (naming the wrong record); 404 before a domain is connected',
    tags: ['domain'],
    plugins: { openapi: { errors: [404] } },
    response: { status: { 202: domainCheckResponse } },
    handler: async (request, h) => {
      const result = await requestDomainCheck(request.server.app.ctx, tenantOf(request));
      return h.response(withMeta(result, { job: { id: result.job.id, status: result.job.status } })).code(202);
    }
  }
});
