import Joi from 'joi';
import { INVENTORY_POLICIES, PRODUCT_STATUSES } from '../../services/catalog/product-rows.js';
import { jobResource } from '../admin-jobs/schemas.js';
import { id, idValue, responseObject, text, timestamp } from '../schemas.js';

export const productJobResponse = responseObject({ job: jobResource.required() });

export const exportProductsPayload = Joi.object({
  status: Joi.string().valid(...PRODUCT_STATUSES),
  collectionId: id(),
  tag: text(64).min(1),
  updatedSince: Joi.date().iso().raw()
})
  .allow(null)
  .default({});

const stock = Joi.number().integer().min(-1_000_000_000).max(1_000_000_000);
const action = Joi.alternatives()
  .try(
    Joi.object({ type: Joi.string().valid('setStatus').required(), status: Joi.string().valid(...PRODUCT_STATUSES).required() }),
    Joi.object({ type: Joi.string().valid('addTags', 'removeTags').required(), tags: Joi.array().items(text(64).min(1)).min(1).max(100).required() }),
    Joi.object({ type: Joi.string().valid('addToCollection', 'removeFromCollection').required(), collectionId: id().required() }),
    Joi.object({
      type: Joi.string().valid('changePrice').required(),
      mode: Joi.string().valid('set', 'percent', 'amount').required(),
      value: Joi.number()
        .required()
        .when('mode', { is: 'set', then: Joi.number().integer().min(0).max(1_000_000_000), otherwise: Joi.number().min(-100).max(1000) })
        .when('mode', { is: 'amount', then: Joi.number().integer().min(-1_000_000_000).max(1_000_000_000) }),
      rounding: Joi.string().valid('none', 'whole', 'ninety_nine').default('none')
    }),
    Joi.object({ type: Joi.string().valid('setInventoryPolicy').required(), policy: Joi.string().valid(...INVENTORY_POLICIES).required() }),
    Joi.object({ type: Joi.string().valid('adjustStock').required(), delta: stock.required() }),
    Joi.object({ type: Joi.string().valid('setStock').required(), quantity: stock.required() }),
    Joi.object({ type: Joi.string().valid('delete').required() })
  )
  .required();

export const bulkPayload = Joi.object({
  ids: Joi.array().items(id()).min(1).max(10_000).unique(),
  filter: Joi.object({
    status: Joi.string().valid(...PRODUCT_STATUSES),
    collectionId: id(),
    tag: text(64).min(1),
    q: text(200).min(1)
  }),
  action,
  dryRun: Joi.boolean().default(false)
}).xor('ids', 'filter');

export const bulkResponse = responseObject({
  dryRun: Joi.boolean().required(),
  count: Joi.number().integer().min(0).required().description('products the request names'),
  job: jobResource.allow(null).required()
}).label('ProductBulk');

export const inventoryHistoryResponse = responseObject({
  entries: Joi.array()
    .items(
      responseObject({
        id: idValue().required(),
        variantId: idValue().required(),
        delta: Joi.number().integer().required(),
        quantityAfter: Joi.number().integer().required(),
        reason: Joi.string().valid('sale', 'cancel', 'refund', 'return', 'manual', 'import', 'bulk', 'sync').required(),
        note: Joi.string().allow(null).required(),
        actor: responseObject({ type: Joi.string().valid('user', 'system', 'customer', 'job').required(), userId: idValue().allow(null).required() }).required(),
        orderId: idValue().allow(null).required(),
        jobId: idValue().allow(null).required(),
        reference: Joi.string().allow(null).required(),
        createdAt: timestamp().required()
      }).label('InventoryLedgerEntry')
    )
    .required()
});
