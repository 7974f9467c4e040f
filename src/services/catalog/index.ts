/**
 * The face of module catalog: products, variants, media, collections, the storefront's catalog, and stock (inventory, the ledger, checkout holds).
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { bumpStorefrontVersion, storefrontHttpState, type StorefrontHttpState } from './catalog-version.js';
export { createCollection, deleteCollection, getCollectionPage, listCollections, updateCollection, type CollectionInput } from './collections.js';
export { upsertExternalProducts, type ExternalProductRow } from './external-products.js';
export { changeInventory, lockVariants, restockUnits, takeUnits, type InventoryChange } from './inventory.js';
export { ALLOWED_IMAGE_TYPES, MEDIA_MAX_BYTES, createMedia, mediaUrl, openMedia, payloadTooLarge } from './media.js';
export { LOW_STOCK_THRESHOLD, catalogModule } from './module.js';
export { INVENTORY_POLICIES, PRODUCT_STATUSES, toAdminVariantDto, type ProductStatus } from './product-rows.js';
export { createProduct, deleteProduct, getProduct, listProducts, setProductStatus, updateProduct, type ProductInput } from './products.js';
export { noteCatalogWrite, readCatalog } from './replica-routing.js';
export { CONVERT_HOLDS_SQL, TAKE_STOCK_CTES, availabilityFlipped, releaseHolds, takeReason } from './stock-holds.js';
export { cachedStorefrontBody, type CachedBody } from './storefront-cache.js';
export { STOREFRONT_SORTS, getStorefrontCollection, getStorefrontProduct, listStorefrontCollections, listStorefrontProducts, type StorefrontProductFilters } from './storefront.js';
export { PRODUCTS_BULK_JOB_TYPE, runProductBulk, startProductBulk, type BulkRequest } from './bulk.js';
export { PRODUCTS_EXPORT_JOB_TYPE, runProductExport } from './csv/product-export.js';
export { PRODUCTS_IMPORT_JOB_TYPE, runProductImport } from './csv/product-import.js';
export { startProductExport, startProductImport } from './csv/product-transfer.js';
export type { ImportMode } from './csv/product-import-apply.js';
export { inventoryHistory } from './inventory-history.js';
export { lineTitle, resolveHandLines, variantsForPricing, type HandLine, type HandLineInput, type VariantPricing } from './order-lines.js';
export { PRODUCT_DEFAULT_SORT, PRODUCT_SORTS } from './products.js';
export { WEIGHT_UNITS, toGrams, type WeightUnit } from './variants.js';
