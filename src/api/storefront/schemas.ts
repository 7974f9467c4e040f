import Joi from 'joi';
import { optionValuesResource, productOptionResource, productSeoResource } from '../admin-products/schemas.js';
import { emailValue, idValue, responseObject, timestamp } from '../schemas.js';

/**
 * The storefront catalog's shapes. Products and collections are JSON text built in PostgreSQL
 * (migrations/20261123006200_storefront_documents.ts, services/catalog/storefront.ts): these
 * schemas describe that text, and the response contract parses it in tests to hold the two together.
 */

/** An image as a storefront renders it: no content type, size or upload time. */
export const storefrontImageResource = responseObject({
  id: idValue().required(),
  url: Joi.string().uri().required(),
  alt: Joi.string().allow(null).required(),
  width: Joi.number().integer().allow(null).required(),
  height: Joi.number().integer().allow(null).required()
}).label('StorefrontImage');

/** A live variant: price and availability, never the stock count. */
export const storefrontVariantResource = responseObject({
  id: idValue().required(),
  sku: Joi.string().allow(null).required(),
  title: Joi.string().required(),
  optionValues: optionValuesResource.required(),
  price: Joi.number().integer().required(),
  compareAtPrice: Joi.number().integer().allow(null).required(),
  available: Joi.boolean().required(),
  weightGrams: Joi.number().integer().allow(null).required(),
  requiresShipping: Joi.boolean().required(),
  taxRate: Joi.number().integer().description('with ?country=: the tax rate (basis points) for this variant there'),
  priceInclTax: Joi.number().integer().description('with ?country=: the price with tax'),
  priceExclTax: Joi.number().integer().description('with ?country=: the price without tax'),
  displayPrice: Joi.number().integer().description('with ?country=: the price to show (with tax when the store prices include it, VAT style; else without)')
}).label('StorefrontVariant');

/** With ?country=: how the prices of this answer are taxed for a shopper there. */
const storefrontTaxViewResource = responseObject({
  pricesIncludeTax: Joi.boolean().required(),
  country: Joi.string().length(2).required(),
  region: Joi.string().allow(null).required(),
  name: Joi.string().allow(null).required().description("the tax there (the store's tax region), null when none applies")
}).label('StorefrontTaxView');

/** `price` is the lowest variant price; `compareAtPrice` the highest compare-at price of its variants. */
export const storefrontProductResource = responseObject({
  id: idValue().required(),
  title: Joi.string().required(),
  slug: Joi.string().required(),
  description: Joi.string().allow('').required(),
  tags: Joi.array().items(Joi.string()).required(),
  options: Joi.array().items(productOptionResource).required(),
  seo: productSeoResource.required(),
  price: Joi.number().integer().required(),
  priceRange: responseObject({ min: Joi.number().integer().required(), max: Joi.number().integer().required() }).label('PriceRange').required(),
  compareAtPrice: Joi.number().integer().allow(null).required(),
  available: Joi.boolean().required(),
  featuredImage: storefrontImageResource.allow(null).required(),
  images: Joi.array().items(storefrontImageResource).required(),
  variants: Joi.array().items(storefrontVariantResource).required(),
  tax: storefrontTaxViewResource,
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('StorefrontProduct');

const storefrontCollectionKeys = {
  id: idValue().required(),
  title: Joi.string().required(),
  slug: Joi.string().required(),
  description: Joi.string().allow('').required(),
  image: storefrontImageResource.allow(null).required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
};

export const storefrontCollectionResource = responseObject(storefrontCollectionKeys).label('StorefrontCollection');

export const storefrontProductListResponse = responseObject({ products: Joi.array().items(storefrontProductResource).required() });
export const storefrontProductResponse = responseObject({ product: storefrontProductResource.required() });
export const storefrontCollectionListResponse = responseObject({ collections: Joi.array().items(storefrontCollectionResource).required() });
/** The collection with one page of its active products (collection order) inside it. */
export const storefrontCollectionResponse = responseObject({
  collection: responseObject({ ...storefrontCollectionKeys, products: Joi.array().items(storefrontProductResource).required() })
    .label('StorefrontCollectionWithProducts')
    .required()
});

export const storefrontStoreResponse = responseObject({
  store: responseObject({
    name: Joi.string().required(),
    slug: Joi.string().required(),
    currency: Joi.string().length(3).required(),
    contactEmail: Joi.string().allow(null).required(),
    shippingCountries: Joi.array().items(Joi.string()).required(),
    logoUrl: Joi.string().allow(null).required(),
    pricesIncludeTax: Joi.boolean().required().description('whether product and cart prices include tax (VAT style)')
  })
    .label('StorefrontStore')
    .required()
});

/** Subscribed now (or already), or waiting for the confirm link sent by email (double opt-in, or an address that unsubscribed). */
export const newsletterSubscribeResponse = Joi.alternatives()
  .try(
    responseObject({
      subscribed: Joi.boolean().valid(true).required(),
      email: emailValue().required(),
      emailMarketing: Joi.string().valid('subscribed').required()
    }).label('NewsletterSubscribed'),
    responseObject({ status: Joi.string().valid('pending_confirmation').required(), email: emailValue().required() }).label('NewsletterPendingConfirmation')
  )
  .label('NewsletterSubscription');
