/**
 * The face of module domains: a store's custom domain and its DNS checks.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { DOMAIN_CHECK_JOB_TYPE, runDomainCheckJob } from './check-job.js';
export { DNS_RECORD_TYPES, DOMAIN_FAILURE_REASONS, DOMAIN_STATUSES, getDomain, startDomainOnboarding } from './domains.js';
export { receiveHostedDomainWebhook } from './hosted-domain-webhook.js';
export { domainsModule } from './module.js';
export { recheckDueDomains } from './recheck.js';
export { requestDomainCheck } from './request-check.js';
