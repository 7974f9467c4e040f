import type { Knex } from 'knex';
import * as auditLog from './20261126180000_audit_log.js';
import * as foundation from './20261122000100_foundation.js';
import * as catalog from './20261122000200_catalog.js';
import * as customers from './20261122000300_customers.js';
import * as platform from './20261123000100_platform.js';
import * as checkout from './20261123003100_checkout.js';
import * as orderNumbersAndRollups from './20261123003200_order_numbers_and_rollups.js';
import * as storeOperations from './20261123004000_store_operations.js';
import * as customerCounts from './20261123004100_customer_counts.js';
import * as marketing from './20261123005100_marketing.js';
import * as storefrontHttpCache from './20261123006100_storefront_http_cache.js';
import * as storefrontDocuments from './20261123006200_storefront_documents.js';
import * as customerSearch from './20261123002100_customer_search.js';
import * as customerImportEmails from './20261123006300_customer_import_emails.js';
import * as storefrontSearch from './20261123006400_storefront_search.js';
import * as cartCheckoutOpened from './20261123006500_cart_checkout_opened.js';
import * as checkoutIndexes from './20261123006600_checkout_indexes.js';
import * as customerCountsEarlyExit from './20261123006700_customer_counts_early_exit.js';
import * as stockRefusal from './20261123006800_stock_refusal.js';
import * as variantLowStock from './20261123006900_variant_low_stock.js';
import * as campaignUnsubscribes from './20261123007000_campaign_unsubscribes.js';
import * as customerCountsByBackend from './20261123007100_customer_counts_by_backend.js';
import * as paymentEventTrust from './20261125002000_payment_event_trust.js';
import * as newsletterDoubleOptInDefault from './20261125005000_newsletter_double_opt_in_default.js';
import * as campaignRecipientClaims from './20261125004000_campaign_recipient_claims.js';
import * as stockCountHolds from './20261125003000_stock_count_holds.js';
import * as manualPayments from './20261125003100_manual_payments.js';
import * as apiKeys from './20261125009000_api_keys.js';
import * as apiKeyRevocation from './20261126031000_api_key_revocation.js';
import * as productCsvLedger from './20261126190000_product_csv_ledger.js';
import * as webhooks from './20261125009100_webhooks.js';
import * as orderLifecycle from './20261125010000_order_lifecycle.js';
import * as backendState from './20261125011000_backend_state.js';
import * as webhookTopics from './20261125013000_webhook_topics.js';
import * as citusStoreKeys from './20261125014000_citus_store_keys.js';
import * as campaignSweepRequeues from './20261125015000_campaign_sweep_requeues.js';
import * as orderItemRestocks from './20261126002300_order_item_restocks.js';
import * as listSortIndexes from './20261126200000_list_sort_indexes.js';
import * as taxes from './20261127040000_taxes.js';

/**
 * Every migration, in order. Listed by hand rather than read from disk so the same list works under
 * tsx and compiled to dist/, with no loader tricks. Add new migrations at the end.
 */
export const migrations: Array<{ name: string; module: Knex.Migration }> = [
  { name: '20261122000100_foundation', module: foundation },
  { name: '20261122000200_catalog', module: catalog },
  { name: '20261122000300_customers', module: customers },
  { name: '20261123000100_platform', module: platform },
  { name: '20261123003100_checkout', module: checkout },
  { name: '20261123003200_order_numbers_and_rollups', module: orderNumbersAndRollups },
  { name: '20261123004000_store_operations', module: storeOperations },
  { name: '20261123004100_customer_counts', module: customerCounts },
  { name: '20261123005100_marketing', module: marketing },
  { name: '20261123006100_storefront_http_cache', module: storefrontHttpCache },
  { name: '20261123006200_storefront_documents', module: storefrontDocuments },
  { name: '20261123002100_customer_search', module: customerSearch },
  { name: '20261123006300_customer_import_emails', module: customerImportEmails },
  { name: '20261123006400_storefront_search', module: storefrontSearch },
  { name: '20261123006500_cart_checkout_opened', module: cartCheckoutOpened },
  { name: '20261123006600_checkout_indexes', module: checkoutIndexes },
  { name: '20261123006700_customer_counts_early_exit', module: customerCountsEarlyExit },
  { name: '20261123006800_stock_refusal', module: stockRefusal },
  { name: '20261123006900_variant_low_stock', module: variantLowStock },
  { name: '20261123007000_campaign_unsubscribes', module: campaignUnsubscribes },
  { name: '20261123007100_customer_counts_by_backend', module: customerCountsByBackend },
  { name: '20261125002000_payment_event_trust', module: paymentEventTrust },
  { name: '20261125005000_newsletter_double_opt_in_default', module: newsletterDoubleOptInDefault },
  { name: '20261125004000_campaign_recipient_claims', module: campaignRecipientClaims },
  { name: '20261125003000_stock_count_holds', module: stockCountHolds },
  { name: '20261125003100_manual_payments', module: manualPayments },
  { name: '20261125009000_api_keys', module: apiKeys },
  { name: '20261125009100_webhooks', module: webhooks },
  { name: '20261125010000_order_lifecycle', module: orderLifecycle },
  { name: '20261125011000_backend_state', module: backendState },
  { name: '20261125013000_webhook_topics', module: webhookTopics },
  { name: '20261125014000_citus_store_keys', module: citusStoreKeys },
  { name: '20261125015000_campaign_sweep_requeues', module: campaignSweepRequeues },
  { name: '20261126002300_order_item_restocks', module: orderItemRestocks },
  { name: '20261126031000_api_key_revocation', module: apiKeyRevocation },
  { name: '20261126180000_audit_log', module: auditLog },
  { name: '20261126190000_product_csv_ledger', module: productCsvLedger },
  { name: '20261126200000_list_sort_indexes', module: listSortIndexes },
  { name: '20261127040000_taxes', module: taxes }
];
