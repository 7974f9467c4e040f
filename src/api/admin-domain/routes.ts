import { getDomain, requestDomainCheck, startDomainOnboarding } from '../../services/domains/index.js';
import { ADMINS } from '../../platform/roles.js';
import { withMeta } from '../plugins/envelope.js';
import { adminHandler } from '../handler.js';
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
    handler: adminHandler<{}, { hostname: string }>(({ ctx, storeId, payload }) => startDomainOnboarding(ctx, storeId, payload.hostname))
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
    handler: adminHandler(({ ctx, storeId }) => getDomain(ctx, storeId))
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
    handler: adminHandler(async ({ ctx, actor, h }) => {
      const result = await requestDomainCheck(ctx, actor);
      return h.response(withMeta(result, { job: { id: result.job.id, status: result.job.status } })).code(202);
    })
  }
});
