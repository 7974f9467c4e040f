import Joi from 'joi';
import { DNS_RECORD_TYPES, DOMAIN_FAILURE_REASONS, DOMAIN_STATUSES } from '../../services/domains/index.js';
import { jobResource } from '../admin-jobs/schemas.js';
import { idValue, responseObject, timestamp } from '../schemas.js';

export const onboardingPayload = Joi.object({
  hostname: Joi.string().trim().lowercase().min(1).max(253).required()
});

const dnsRecord = responseObject({
  type: Joi.string().valid(...DNS_RECORD_TYPES).required(),
  name: Joi.string().required(),
  value: Joi.string().required()
}).label('DnsRecord');

/** Which record the last check found wrong, and what it found instead. */
const domainFailure = responseObject({
  type: Joi.string().valid(...DNS_RECORD_TYPES).required(),
  name: Joi.string().required(),
  expected: Joi.string().required(),
  found: Joi.array().items(Joi.string().allow('')).required(),
  reason: Joi.string().valid(...DOMAIN_FAILURE_REASONS).required(),
  message: Joi.string().required()
}).label('DomainFailure');

export const domainResource = responseObject({
  id: idValue().required(),
  hostname: Joi.string().hostname().required(),
  status: Joi.string().valid(...DOMAIN_STATUSES).required(),
  records: Joi.array().items(dnsRecord).required().description('the CNAME and TXT records to create at the DNS host'),
  onboardingUrl: Joi.string().uri().required(),
  failures: Joi.array().items(domainFailure).required(),
  lastCheckedAt: timestamp().allow(null).required(),
  nextCheckAt: timestamp().allow(null).required(),
  verifiedAt: timestamp().allow(null).required(),
  activatedAt: timestamp().allow(null).required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('Domain');

export const domainResponse = responseObject({ domain: domainResource.required() });
export const domainCheckResponse = responseObject({ domain: domainResource.required(), job: jobResource.required() });
