import Joi from 'joi';
import { INVENTORY_POLICIES, PRODUCT_STATUSES } from '../../services/catalog/read-models.js';
import { id, money, slug, text } from '../schemas.js';

const optionName = () => text(64).min(1);

const option = Joi.object({
  name: optionName().required(),
  values: Joi.array().items(text(64).min(1)).min(1).max(100).unique((a: string, b: string) => a.toLowerCase() === b.toLowerCase()).required()
});

/** A variant: with `id` it updates that variant (absent fields unchanged); without, it is created (price required). */
const variant = Joi.object({
  id: id(),
  sku: text(64).allow(null, ''),
  title: text(255).min(1),
  optionValues: Joi.alternatives().try(Joi.object().pattern(optionName(), text(64).min(1)), Joi.array().items(text(64).min(1)).max(10)),
  price: money().when('id', { not: Joi.exist(), then: Joi.required() }),
  compareAtPrice: money().allow(null),
  inventoryQuantity: Joi.number().integer().min(0).max(1_000_000_000),
  inventoryPolicy: Joi.string().valid(...INVENTORY_POLICIES)
});

const productFields = {
  title: text(255).min(1),
  slug: slug(),
  description: text(50_000).allow(''),
  status: Joi.string().valid(...PRODUCT_STATUSES),
  tags: Joi.array().items(text(64).min(1)).max(100),
  options: Joi.array().items(option).max(3).unique((a: { name: string }, b: { name: string }) => a.name.toLowerCase() === b.name.toLowerCase()),
  variants: Joi.array().items(variant).max(100).unique('id', { ignoreUndefined: true }),
  mediaIds: Joi.array().items(id()).max(50).unique(),
  seo: Joi.object({ title: text(255).allow('', null), description: text(1000).allow('', null) })
};

export const createProductPayload = Joi.object({ ...productFields, title: productFields.title.required() });
export const updateProductPayload = Joi.object(productFields).min(1);
export const statusPayload = Joi.object({ status: Joi.string().valid(...PRODUCT_STATUSES).required() });

export const inventoryPayload = Joi.object({
  delta: Joi.number().integer().min(-1_000_000_000).max(1_000_000_000).invalid(0).messages({ 'any.invalid': 'delta must not be zero' }),
  quantity: Joi.number().integer().min(0).max(1_000_000_000),
  reason: text(255).allow('', null)
})
  .xor('delta', 'quantity')
  .messages({ 'object.xor': 'give either delta or quantity, not both', 'object.missing': 'delta or quantity is required' });

export const listProductsQuery = {
  status: Joi.string().valid(...PRODUCT_STATUSES),
  q: Joi.string().trim().max(200).allow(''),
  collectionId: id()
};
