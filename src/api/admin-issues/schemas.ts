import Joi from 'joi';
import { ISSUE_SEVERITIES } from '../../services/issues/index.js';
import { idValue, responseObject, timestamp } from '../schemas.js';

/** An operational issue; `kind` is open-ended (`dns_failed`, `sync_failed`, `email_failed`, `low_stock`, …). */
export const issueResource = responseObject({
  id: idValue().required(),
  kind: Joi.string().required(),
  subject: Joi.string().allow(null).required().description('what it is about (a hostname, an event id, a variant); null when the kind has one issue per store'),
  severity: Joi.string().valid(...ISSUE_SEVERITIES).required(),
  title: Joi.string().required(),
  detail: Joi.string().allow('', null).required(),
  occurrences: Joi.number().integer().min(1).required(),
  firstSeenAt: timestamp().required(),
  lastSeenAt: timestamp().required(),
  resolvedAt: timestamp().allow(null).required()
}).label('Issue');

export const issueResponse = responseObject({ issue: issueResource.required() });
export const issueListResponse = responseObject({ issues: Joi.array().items(issueResource).required() });
