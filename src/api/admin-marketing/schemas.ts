import Joi from 'joi';
import { CAMPAIGN_TYPES } from '../../services/marketing/index.js';
import { id, idValue, money, responseObject, text, timestamp } from '../schemas.js';

const LIQUID_MAX = 200_000;
const liquid = (max = LIQUID_MAX) => Joi.string().max(max).allow('');

/** Template `{ key, name, subject, html, text }`; `key` defaults to one made from the name. */
export const templatePayload = Joi.object({
  key: Joi.string().trim().lowercase().min(1).max(64).pattern(/^[a-z0-9][a-z0-9_-]*$/, 'letters, digits, - and _'),
  name: text(200).min(1).required(),
  subject: Joi.string().trim().min(1).max(1000).required(),
  html: liquid(),
  text: liquid()
}).or('html', 'text');

export const previewPayload = Joi.object({ data: Joi.object().unknown(true).max(100) }).allow(null);

export const listPayload = Joi.object({
  name: text(200).min(1).required(),
  description: text(2000).allow(null, ''),
  customerIds: Joi.array().items(id()).max(50_000)
});

const ids = () => Joi.array().items(id()).max(1000).unique();

/** An empty array is no restriction, the same as leaving the key out (see audienceCondition). */
export const audienceSchema = Joi.object({
  listIds: ids(),
  filters: Joi.object({
    tags: Joi.array().items(text(100).min(1)).max(100),
    lastOrderBefore: Joi.date().iso(),
    lastOrderAfter: Joi.date().iso(),
    minOrders: Joi.number().integer().min(0).max(1_000_000_000),
    minTotalSpent: money(),
    purchasedProductIds: ids(),
    purchasedCollectionIds: ids()
  })
});

export const audiencePreviewPayload = Joi.object({ audience: audienceSchema.required() });

/** Content: a saved template, or inline Liquid `{ subject, html, text }`. */
const content = {
  templateId: id(),
  subject: Joi.string().trim().min(1).max(1000),
  html: liquid(),
  text: liquid()
};
const sendAt = Joi.date().iso().allow(null);

const withContent = (schema: Joi.ObjectSchema, required: boolean) => {
  const s = schema.oxor('templateId', 'subject').with('html', 'subject').with('text', 'subject');
  return required ? s.or('templateId', 'subject') : s;
};

export const genericCampaignPayload = withContent(Joi.object({ ...content, audience: audienceSchema, sendAt }), true);
export const newsletterCampaignPayload = withContent(Joi.object({ ...content, sendAt }), true);
export const oldCustomersCampaignPayload = withContent(
  Joi.object({ ...content, inactiveDays: Joi.number().integer().min(1).max(3650).default(90), discountCode: Joi.string().trim().min(1).max(64), sendAt }),
  true
);
export const productAnnouncementPayload = withContent(Joi.object({ ...content, productId: id().required(), audience: audienceSchema, sendAt }), false);
export const collectionAnnouncementPayload = withContent(Joi.object({ ...content, collectionId: id().required(), audience: audienceSchema, sendAt }), false);


export const CAMPAIGN_STATUSES = ['scheduled', 'sending', 'sent', 'failed', 'cancelled'];

const nonNegative = () => Joi.number().integer().min(0).required();

export const templateResource = responseObject({
  id: idValue().required(),
  key: Joi.string().required(),
  name: Joi.string().required(),
  subject: Joi.string().required(),
  html: Joi.string().allow('').required(),
  text: Joi.string().allow('').required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('MarketingTemplate');

export const templateResponse = responseObject({ template: templateResource.required() });
export const templateListResponse = responseObject({ templates: Joi.array().items(templateResource).required() });
export const templatePreviewResponse = responseObject({
  preview: responseObject({
    subject: Joi.string().allow('').required(),
    html: Joi.string().allow('').required(),
    text: Joi.string().allow('').required()
  })
    .label('RenderedEmail')
    .required()
});

export const listResource = responseObject({
  id: idValue().required(),
  name: Joi.string().required(),
  description: Joi.string().allow('', null).required(),
  customerIds: Joi.array().items(idValue()).required(),
  memberCount: nonNegative(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('MarketingList');

export const listResponse = responseObject({ list: listResource.required() });
export const listListResponse = responseObject({ lists: Joi.array().items(listResource).required() });

export const audiencePreviewResponse = responseObject({
  count: nonNegative(),
  sample: Joi.array()
    .items(
      responseObject({
        id: idValue().required(),
        // Imported and synced customers' addresses pass looser checks than joi's email(): no format claimed.
        email: Joi.string().required(),
        firstName: Joi.string().allow('', null).required(),
        lastName: Joi.string().allow('', null).required()
      }).label('AudienceSampleCustomer')
    )
    .max(10)
    .description('The 10 newest customers of the audience; absent for an API key without read_customers (emails and names are customer data)')
});

/** The audience as the campaign stored it; `inactiveDays` is the old-customers rule, a newsletter's is `{}`. */
const campaignAudience = responseObject({
  listIds: Joi.array().items(idValue()),
  filters: responseObject({
    tags: Joi.array().items(Joi.string()),
    lastOrderBefore: timestamp(),
    lastOrderAfter: timestamp(),
    minOrders: Joi.number().integer().min(0),
    minTotalSpent: Joi.number().integer().min(0),
    purchasedProductIds: Joi.array().items(idValue()),
    purchasedCollectionIds: Joi.array().items(idValue())
  }),
  inactiveDays: Joi.number().integer().min(1)
}).label('CampaignAudience');

export const campaignResource = responseObject({
  id: idValue().required(),
  type: Joi.string().valid(...CAMPAIGN_TYPES).required(),
  status: Joi.string().valid(...CAMPAIGN_STATUSES).required(),
  subject: Joi.string().required(),
  templateId: idValue().allow(null).required().description('the template the content was copied from, if any'),
  audience: campaignAudience.required(),
  recipients: nonNegative(),
  sent: nonNegative(),
  failed: nonNegative(),
  skipped: nonNegative(),
  suppressed: nonNegative(),
  unsubscribes: nonNegative(),
  clicks: nonNegative(),
  progress: responseObject({ processed: nonNegative(), percent: Joi.number().integer().min(0).max(100).required() }).required(),
  sendAt: timestamp().allow(null).required(),
  startedAt: timestamp().allow(null).required(),
  completedAt: timestamp().allow(null).required(),
  cancelledAt: timestamp().allow(null).required(),
  error: Joi.string().allow('', null).required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('Campaign');

export const campaignResponse = responseObject({ campaign: campaignResource.required() });
export const campaignListResponse = responseObject({ campaigns: Joi.array().items(campaignResource).required() });
