import Joi from 'joi';
import { id, money, text } from '../schemas.js';

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

const ids = () => Joi.array().items(id()).min(1).max(1000).unique();

export const audienceSchema = Joi.object({
  listIds: ids(),
  filters: Joi.object({
    tags: Joi.array().items(text(100).min(1)).min(1).max(100),
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
