import type { Module } from './context.js';
import { catalogModule } from './services/catalog/module.js';
import { customersModule } from './services/customers/module.js';
import { domainsModule } from './services/domains/module.js';
import { issuesModule } from './services/issues/module.js';
import { marketingModule } from './services/marketing/module.js';
import { ordersModule } from './services/orders/module.js';
import { paymentsModule } from './services/payments/module.js';
import { reviewsModule } from './services/reviews/module.js';
import { webhooksModule } from './services/webhooks/module.js';

/**
 * Every installed module's contribution. Add one line per module. Each process hands this list to
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
  webhooksModule
];
