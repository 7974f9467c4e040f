import Joi from 'joi';
import { PRODUCT_STATUSES } from '../../services/catalog/index.js';
import { mediaResource } from '../admin-products/schemas.js';
import { id, idValue, responseObject, slug, text, timestamp } from '../schemas.js';

const collectionFields = {
  title: text(255).min(1),
  slug: slug(),
  description: text(50_000).allow(''),
  productIds: Joi.array().items(id()).max(5000).unique(),
  isPublished: Joi.boolean(),
  mediaId: id().allow(null)
};

export const createCollectionPayload = Joi.object({ ...collectionFields, title: collectionFields.title.required() });
export const updateCollectionPayload = Joi.object(collectionFields).min(1);

const collectionKeys = {
  id: idValue().required(),
  title: Joi.string().required(),
  slug: Joi.string().required(),
  description: Joi.string().allow('').required(),
  isPublished: Joi.boolean().required(),
  mediaId: idValue().allow(null).required(),
  image: mediaResource.allow(null).required(),
  productsCount: Joi.number().integer().required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
};

/** A collection in the admin list: without its products. */
export const collectionListItemResource = responseObject(collectionKeys).label('CollectionListItem');

/** A collection with one page of its products in order (`productIds` are that page's). */
export const collectionResource = responseObject({
  ...collectionKeys,
  productIds: Joi.array().items(idValue()).required(),
  products: Joi.array()
    .items(
      responseObject({
        id: idValue().required(),
        title: Joi.string().required(),
        slug: Joi.string().required(),
        status: Joi.string().valid(...PRODUCT_STATUSES).required(),
        price: Joi.number().integer().required(),
        position: Joi.number().integer().required()
      }).label('CollectionProduct')
    )
    .required()
}).label('Collection');

export const collectionListResponse = responseObject({ collections: Joi.array().items(collectionListItemResource).required() });
export const collectionResponse = responseObject({ collection: collectionResource.required() });

export const collectionDeletedResponse = responseObject({ deleted: Joi.boolean().valid(true).required(), id: idValue().required() }).label('CollectionDeleted');
