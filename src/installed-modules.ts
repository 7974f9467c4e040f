import type { Module } from './context.js';
import { accountsModule } from './services/accounts/index.js';
import { apiKeysModule } from './services/api-keys/index.js';
import { auditModule } from './services/audit/index.js';
import { checkoutModule } from './services/checkout/index.js';
import { discountsModule } from './services/discounts/index.js';
import { draftOrdersModule } from './services/draft-orders/index.js';
import { emailModule } from './services/email/index.js';
import { externalSystemModule } from './services/external-system/index.js';
import { jobHistoryModule } from './services/job-history/index.js';
import { storesModule } from './services/stores/index.js';
import { taxesModule } from './services/taxes/index.js';
import { catalogModule } from './services/catalog/index.js';
import { customersModule } from './services/customers/index.js';
import { domainsModule } from './services/domains/index.js';
import { issuesModule } from './services/issues/index.js';
import { marketingModule } from './services/marketing/index.js';
import { ordersModule } from './services/orders/index.js';
import { paymentsModule } from './services/payments/index.js';
import { reviewsModule } from './services/reviews/index.js';
import { shippingModule } from './services/shipping/index.js';
import { webhooksModule } from './services/webhooks/index.js';

/**
 * Every module (a folder under src/services/) and its contribution, in the order the registry asks
 * them (the first to answer a question answers it). Add one line per module. Each process hands this list to
 * `createContext`; services reach the modules through `ctx.modules`, never by importing this file.
 */
export const MODULES: Module[] = [
  catalogModule,
  customersModule,
  issuesModule,
  ordersModule,
  reviewsModule,
  paymentsModule,
  domainsModule,
  marketingModule,
  webhooksModule,
  // Modules that contribute nothing to the others yet; listed all the same (one meaning of "module").
  accountsModule,
  apiKeysModule,
  auditModule,
  checkoutModule,
  discountsModule,
  draftOrdersModule,
  emailModule,
  externalSystemModule,
  jobHistoryModule,
  shippingModule,
  storesModule,
  taxesModule
];
