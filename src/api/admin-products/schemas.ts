import Joi from 'joi';
import { ALLOWED_IMAGE_TYPES } from '../../services/catalog/index.js';
import { INVENTORY_POLICIES, PRODUCT_STATUSES, WEIGHT_UNITS } from '../../services/catalog/index.js';
import { PRODUCT_DEFAULT_SORT, PRODUCT_SORTS } from '../../services/catalog/index.js';
import { sortValues } from '../../platform/pagination.js';
import { id, idValue, money, responseObject, slug, sortQuery, text, timestamp } from '../schemas.js';

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
  price: money()
    .when('id', { not: Joi.exist(), then: Joi.required() })
    .description('minor units; required for a new variant (no id)'),
  compareAtPrice: money().allow(null),
  inventoryQuantity: Joi.number().integer().min(0).max(1_000_000_000),
  inventoryPolicy: Joi.string().valid(...INVENTORY_POLICIES),
  weightGrams: Joi.number().integer().min(0).max(100_000_000).allow(null).description('integer grams; null: unknown (counts 0 in shipping weight)'),
  weight: Joi.number().min(0).max(100_000_000).description('a weight in weightUnit, instead of weightGrams; stored as grams rounded half up'),
  weightUnit: Joi.string().valid(...WEIGHT_UNITS).description('unit of weight (default g)'),
  requiresShipping: Joi.boolean().description('false for what never ships (digital goods); default true'),
  taxClass: Joi.string().trim().max(64).pattern(/^[a-z0-9_-]+$/, 'tax class').allow(null, '').description("a tax region's classRates key (e.g. reduced, zero; or a Stripe tax code txcd_… with Stripe Tax); null: the default rate")
})
  .oxor('weightGrams', 'weight')
  .with('weightUnit', 'weight');

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
  collectionId: id(),
  sort: sortQuery(sortValues(PRODUCT_SORTS), PRODUCT_DEFAULT_SORT, {
    createdAt: 'when the product was created',
    title: 'the title, case-insensitive',
    price: "the lowest price of the product's variants"
  })
};

/** An uploaded image as the admin sees it: the media upload's resource (admin-store), embedded in products and collections. */
export const mediaResource = responseObject({
  id: idValue().required(),
  url: Joi.string().uri().required(),
  contentType: Joi.string().valid(...Object.keys(ALLOWED_IMAGE_TYPES)).required(),
  size: Joi.number().integer().min(1).required().description('bytes'),
  width: Joi.number().integer().allow(null).required(),
  height: Joi.number().integer().allow(null).required(),
  alt: Joi.string().allow(null).required(),
  createdAt: timestamp().required()
}).label('Media');

export const productOptionResource = responseObject({
  name: Joi.string().required(),
  values: Joi.array().items(Joi.string()).required()
}).label('ProductOption');

/** `{ "Size": "M" }`: one value per product option. */
export const optionValuesResource = Joi.object().pattern(Joi.string(), Joi.string()).label('OptionValues');

export const productSeoResource = responseObject({
  title: Joi.string().allow('', null).required(),
  description: Joi.string().allow('', null).required()
}).label('ProductSeo');

export const variantResource = responseObject({
  id: idValue().required(),
  sku: Joi.string().allow(null).required(),
  title: Joi.string().required(),
  optionValues: optionValuesResource.required(),
  price: Joi.number().integer().required(),
  compareAtPrice: Joi.number().integer().allow(null).required(),
  inventoryQuantity: Joi.number().integer().required(),
  inventoryPolicy: Joi.string().valid(...INVENTORY_POLICIES).required(),
  taxClass: Joi.string().allow(null).required(),
  available: Joi.boolean().required(),
  weightGrams: Joi.number().integer().allow(null).required(),
  requiresShipping: Joi.boolean().required(),
  position: Joi.number().integer().required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('Variant');

const productKeys = {
  id: idValue().required(),
  title: Joi.string().required(),
  slug: Joi.string().required(),
  description: Joi.string().allow('').required(),
  status: Joi.string().valid(...PRODUCT_STATUSES).required(),
  tags: Joi.array().items(Joi.string()).required(),
  options: Joi.array().items(productOptionResource).required(),
  seo: productSeoResource.required(),
  minPrice: Joi.number().integer().required(),
  maxPrice: Joi.number().integer().required(),
  totalInventory: Joi.number().integer().required(),
  variants: Joi.array().items(variantResource).required(),
  media: Joi.array().items(mediaResource).required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
};

/** A product in the admin list: everything but its collections. */
export const productListItemResource = responseObject(productKeys).label('ProductListItem');

export const productResource = responseObject({
  ...productKeys,
  collections: Joi.array()
    .items(
      responseObject({
        id: idValue().required(),
        title: Joi.string().required(),
        slug: Joi.string().required(),
        isPublished: Joi.boolean().required()
      }).label('ProductCollection')
    )
    .required()
}).label('Product');

export const productListResponse = responseObject({ products: Joi.array().items(productListItemResource).required() });
export const productResponse = responseObject({ product: productResource.required() });
export const productDeletedResponse = responseObject({ deleted: Joi.boolean().valid(true).required(), id: idValue().required() }).label('ProductDeleted');

export const inventoryAdjustmentResponse = responseObject({
  variant: variantResource.required(),
  /** null when the change left the stock as it was (no ledger entry). */
  adjustment: responseObject({
    id: idValue().required(),
    delta: Joi.number().integer().required(),
    reason: Joi.string().allow(null).required(),
    quantityAfter: Joi.number().integer().required(),
    createdAt: timestamp().required()
  })
    .label('InventoryAdjustment')
    .allow(null)
    .required(),
  reserved: Joi.number()
    .integer()
    .min(0)
    .required()
    .description('units held by open checkout sessions; on hand = variant.inventoryQuantity + reserved, and a { quantity } count sets on hand')
});
