/**
 * The face of module stores: stores, their settings and storefront tokens.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { storesModule } from './module.js';
export { STOREFRONT_TOKEN_PREFIX, authenticateStorefrontToken, createStorefrontToken, insertStorefrontToken, listStorefrontTokens, newStorefrontSecret, revokeStorefrontToken, rotateStorefrontToken } from './storefront-tokens.js';
export { cachedStore, getDashboard, getStorefrontStore, insertStore, updateStore, type ShippingMethod, type StoreRow, type UpdateStoreInput } from './stores.js';
