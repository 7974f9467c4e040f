/** The objection models, one per table a module owns (see base-model.ts for how they are used). */
export { BaseModel } from './base-model.js';
export { Collection } from './collection.js';
export { Customer } from './customer.js';
export { Discount } from './discount.js';
export { EmailLogEntry } from './email-log-entry.js';
export { InventoryLedgerEntry } from './inventory-ledger-entry.js';
export { JobRowError } from './job-row-error.js';
export { JobRun } from './job-run.js';
export { Media } from './media.js';
export { Membership } from './membership.js';
export { Product } from './product.js';
export { ProductVariant } from './product-variant.js';
export { Store } from './store.js';
export { StoreIssue } from './store-issue.js';
export { StorefrontToken } from './storefront-token.js';
export { User } from './user.js';
