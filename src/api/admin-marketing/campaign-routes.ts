import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { type Audience, CAMPAIGN_TYPES, type CampaignInput, type CampaignType, cancelCampaign, createCampaign, getCampaign, listCampaigns, previewAudience } from '../../services/marketing/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import { recordBulkRead } from '../../services/audit/index.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { idempotent } from '../idempotency.js';
import { holdsScope } from '../api-key-scopes.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import {
  audiencePreviewPayload,
  audiencePreviewResponse,
  CAMPAIGN_STATUSES,
  campaignListResponse,
  campaignResponse,
  collectionAnnouncementPayload,
  genericCampaignPayload,
  newsletterCampaignPayload,
  oldCustomersCampaignPayload,
  productAnnouncementPayload
} from './schemas.js';

const tags = ['marketing'];
type CampaignParams = { campaignId: string };

export const previewAudienceRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/marketing/audience/preview',
  options: {
    description:
      'Count and sample an audience { listIds?, filters? } (subscribed, unsuppressed customers only): { count, sample: [{ id, email, firstName, lastName }] } (the 10 newest). ' +
      'The sample is customer data: an API key gets it only with read_customers besides marketing; without it the answer is { count } alone',
    tags,
    validate: { payload: audiencePreviewPayload },
    response: { status: { 200: audiencePreviewResponse } },
    handler: adminHandler<{}, { audience: Audience }>(async ({ ctx, storeId, actor, payload }) => {
      const { audience } = payload;
      const preview = await previewAudience(ctx, storeId, audience, { sample: holdsScope(actor, 'read_customers') });
      // Customers' names and emails in bulk: recorded before they are handed out.
      await recordBulkRead(ctx, { action: 'audience.sampled', resourceType: 'audience', details: { audience, count: preview.count, sampled: preview.sample?.length ?? 0 } });
      return preview;
    })
  }
});

const CREATE_DESCRIPTIONS: Record<CampaignType, string> = {
  generic: 'Create a campaign: { templateId } or { subject, html, text }, audience, sendAt?; 202 { campaign }',
  newsletter: 'Create a newsletter to every subscribed customer: content, sendAt?; 202 { campaign }',
  'old-customers':
    'Create a win-back campaign to customers with orders but none in inactiveDays (default 90); discountCode is in the template context; 202 { campaign }',
  'product-announcement': 'Announce a product (product.title, price, priceFormatted, url, imageUrl in the context); optional content and audience; 202 { campaign }',
  'collection-announcement': 'Announce a collection (collection.title, url, products in the context); optional content and audience; 202 { campaign }'
};

const CREATE_PAYLOADS: Record<CampaignType, Joi.ObjectSchema> = {
  generic: genericCampaignPayload,
  newsletter: newsletterCampaignPayload,
  'old-customers': oldCustomersCampaignPayload,
  'product-announcement': productAnnouncementPayload,
  'collection-announcement': collectionAnnouncementPayload
};

/** Announcements name a product or collection in the body: an unknown one is a 404. */
const CREATE_ERRORS: Partial<Record<CampaignType, number[]>> = {
  'product-announcement': [404],
  'collection-announcement': [404]
};

const createCampaignRoute = (type: CampaignType): ServerRoute =>
  idempotent(adminRoute(ADMINS, {
    method: 'POST',
    path: `/admin/marketing/campaigns/${type}`,
    options: {
      description: CREATE_DESCRIPTIONS[type],
      tags,
      validate: { payload: CREATE_PAYLOADS[type] },
      response: { status: { 202: campaignResponse } },
      plugins: { openapi: { errors: CREATE_ERRORS[type] ?? [] } },
      handler: adminHandler<{}, CampaignInput>(async ({ ctx, storeId, actor, payload, h }) => {
        const campaign = await createCampaign(ctx, storeId, type, payload, actor.userId);
        return h.response({ campaign }).code(202);
      })
    }
  }));

export const createCampaignRoutes = CAMPAIGN_TYPES.map(createCampaignRoute);

export const listCampaignsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/marketing/campaigns',
  options: {
    description:
      'List campaigns (newest first) with status and exact counts; ?status=&type=; q matches anywhere in the subject, case-insensitively (% and _ match themselves)',
    tags,
    validate: {
      query: Joi.object({
        ...paginationQuery,
        status: Joi.string().valid(...CAMPAIGN_STATUSES),
        type: Joi.string().valid(...CAMPAIGN_TYPES),
        q: Joi.string().trim().max(200).allow('')
      })
    },
    response: { status: { 200: campaignListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string; status?: string; type?: string; q?: string }>(async ({ ctx, storeId, query }) => {
      const { limit, cursor, status, type, q } = query;
      const result = await listCampaigns(ctx, storeId, { status, type, q }, { limit, cursor });
      return withMeta({ campaigns: result.campaigns }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const getCampaignRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/marketing/campaigns/{campaignId}',
  options: {
    description:
      'A campaign: { id, type, status, recipients, sent, failed, skipped, suppressed, unsubscribes, clicks, progress, sendAt, startedAt, completedAt }',
    tags,
    validate: { params: idParams('campaignId') },
    response: { status: { 200: campaignResponse } },
    handler: adminHandler<CampaignParams>(async ({ ctx, storeId, params }) => ({ campaign: await getCampaign(ctx, storeId, params.campaignId) }))
  }
});

export const cancelCampaignRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/marketing/campaigns/{campaignId}/cancel',
  options: {
    description: 'Cancel a scheduled or sending campaign (the rest stay unsent); otherwise 409 campaign_not_cancellable',
    tags,
    validate: { params: idParams('campaignId') },
    response: { status: { 200: campaignResponse } },
    plugins: { openapi: { errors: [409] } },
    handler: adminHandler<CampaignParams>(async ({ ctx, storeId, params }) => ({ campaign: await cancelCampaign(ctx, storeId, params.campaignId) }))
  }
});
