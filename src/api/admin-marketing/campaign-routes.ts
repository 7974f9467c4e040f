import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { recordBulkRead } from '../../services/audit/bulk-read.js';
import { previewAudience, type Audience } from '../../services/marketing/audience.js';
import { CAMPAIGN_TYPES, cancelCampaign, createCampaign, getCampaign, listCampaigns, type CampaignInput, type CampaignType } from '../../services/marketing/campaigns.js';
import { paginationMeta } from '../../services/pagination.js';
import { ADMINS } from '../../services/roles.js';
import { tenantOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { idempotent } from '../idempotency.js';
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

export const previewAudienceRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/marketing/audience/preview',
  options: {
    description: 'Count and sample an audience { listIds?, filters? } (subscribed, unsuppressed customers only): { count, sample: [{ id, email, firstName, lastName }] }',
    tags,
    validate: { payload: audiencePreviewPayload },
    response: { status: { 200: audiencePreviewResponse } },
    handler: async (request) => {
      const ctx = request.server.app.ctx;
      const { audience } = request.payload as { audience: Audience };
      const preview = await previewAudience(ctx, tenantOf(request).storeId, audience);
      // Customers' names and emails in bulk: recorded before they are handed out.
      await recordBulkRead(ctx, { action: 'audience.sampled', resourceType: 'audience', details: { audience, count: preview.count, sampled: preview.sample.length } });
      return preview;
    }
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
      handler: async (request, h) => {
        const tenant = tenantOf(request);
        const campaign = await createCampaign(request.server.app.ctx, tenant.storeId, type, request.payload as CampaignInput, tenant.userId);
        return h.response({ campaign }).code(202);
      }
    }
  }));

export const createCampaignRoutes = CAMPAIGN_TYPES.map(createCampaignRoute);

export const listCampaignsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/marketing/campaigns',
  options: {
    description: 'List campaigns (newest first) with status and exact counts; ?status=&type=',
    tags,
    validate: {
      query: Joi.object({ ...paginationQuery, status: Joi.string().valid(...CAMPAIGN_STATUSES), type: Joi.string().valid(...CAMPAIGN_TYPES) })
    },
    response: { status: { 200: campaignListResponse } },
    handler: async (request) => {
      const { limit, cursor, status, type } = request.query as { limit: number; cursor?: string; status?: string; type?: string };
      const result = await listCampaigns(request.server.app.ctx, tenantOf(request).storeId, { status, type }, { limit, cursor });
      return withMeta({ campaigns: result.campaigns }, paginationMeta(limit, result.nextCursor));
    }
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
    handler: async (request) => ({ campaign: await getCampaign(request.server.app.ctx, tenantOf(request).storeId, request.params.campaignId as string) })
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
    handler: async (request) => ({ campaign: await cancelCampaign(request.server.app.ctx, tenantOf(request).storeId, request.params.campaignId as string) })
  }
});
