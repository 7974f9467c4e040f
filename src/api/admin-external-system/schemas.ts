import Joi from 'joi';
import { LINK_STATUSES } from '../../services/external-system/index.js';
import { jobResource } from '../admin-jobs/schemas.js';
import { responseObject, timestamp } from '../schemas.js';

const link = {
  baseUrl: Joi.string().trim().uri({ scheme: ['http', 'https'] }).max(2000).required(),
  // It goes into an Authorization header, which takes visible ASCII only.
  apiKey: Joi.string().trim().min(1).max(4000).pattern(/^[\x21-\x7e]+$/, 'visible ASCII characters').required()
};

export const previewPayload = Joi.object(link);
export const connectPayload = Joi.object({ ...link, syncProducts: Joi.boolean().default(true), syncCustomers: Joi.boolean().default(true) });

const linkKeys = {
  status: Joi.string().valid(...LINK_STATUSES).required(),
  accountId: Joi.string().required(),
  accountName: Joi.string().allow('').required(),
  baseUrl: Joi.string().uri().required(),
  syncProducts: Joi.boolean().required(),
  syncCustomers: Joi.boolean().required(),
  connectedAt: timestamp().allow(null).required(),
  disconnectedAt: timestamp().allow(null).required(),
  lastSyncedAt: timestamp().allow(null).required()
};

/** The store's link to the external system (never the API key or the webhook secret). */
export const linkResource = responseObject(linkKeys).label('ExternalSystemLink');
/** The link as connect answers it: the webhook secret is shown this once. */
const connectedLinkResource = responseObject({ ...linkKeys, webhookSecret: Joi.string().required() }).label('ConnectedExternalSystemLink');

export const linkResponse = responseObject({ link: linkResource.required() });
export const connectResponse = responseObject({ link: connectedLinkResource.required(), job: jobResource.required() });
export const syncResponse = responseObject({ job: jobResource.required() });
export const previewResponse = responseObject({
  account: responseObject({ id: Joi.string().required(), name: Joi.string().allow('').required() }).required(),
  counts: responseObject({
    products: Joi.number().integer().min(0).required(),
    customers: Joi.number().integer().min(0).required()
  }).required().description('what a backfill would bring in; a lower bound past 50 pages')
});
