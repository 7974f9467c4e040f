/**
 * The face of module customers: customers, consent and unsubscribes, newsletters, CSV imports and exports.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { UPSERT_CUSTOMER_SQL, customerBindings, upsertOrderCustomer } from './checkout-customers.js';
export { EMAIL_MARKETING_STATES, adjustCustomerTotals, createCustomer, deleteCustomer, getCustomer, listCustomers, updateCustomer, type CustomerFilters, type CustomerPatch, type NewCustomer } from './customers.js';
export { CUSTOMERS_EXPORT_JOB_TYPE, runCustomerExport } from './export.js';
export { upsertExternalCustomers, type ExternalCustomerRow } from './external-customers.js';
export { startCustomerExport, startCustomerImport } from './import-export.js';
export { CUSTOMERS_IMPORT_JOB_TYPE, runCustomerImport } from './import.js';
export { customersModule } from './module.js';
export { confirmNewsletterSubscription, describeNewsletterConfirmation } from './newsletter-confirm.js';
export { applySubscription, limitNewsletterSubscribe, subscribeToNewsletter, type SubscribeInput } from './newsletter.js';
export { describeUnsubscribe, listUnsubscribeHeadersFor, unsubscribeByToken, unsubscribeUrlFor } from './unsubscribe.js';
export { CUSTOMER_DEFAULT_SORT, CUSTOMER_SORTS } from './customers.js';
