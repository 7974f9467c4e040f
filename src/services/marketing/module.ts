import type { Module } from '../../context.js';
import { recordCampaignUnsubscribe } from './campaign-counts.js';
import { getCampaign } from './campaigns.js';
import { findTemplateByKey, templateKeys } from './templates.js';

/** Marketing's part: a store's templates, as overrides and extra keys for transactional email; campaign unsubscribes. */
export const marketingModule: Module = {
  name: 'marketing',
  templateKeys: (ctx, storeId) => templateKeys(ctx, storeId),
  findTemplate: (ctx, storeId, key) => findTemplateByKey(ctx, storeId, key),
  creditUnsubscribe: (trx, storeId, customerId, campaignId) => recordCampaignUnsubscribe(trx, storeId, customerId, campaignId),
  adminResource: { campaign: (ctx, db, storeId, id) => getCampaign(ctx, storeId, id, db) }
};
