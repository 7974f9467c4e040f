import type { Module } from '../../context.js';
import { catalogModule } from '../catalog/module.js';
import { customersModule } from '../customers/module.js';
import { domainsModule } from '../domains/module.js';
import { issuesModule } from '../issues/module.js';
import { marketingModule } from '../marketing/module.js';
import { ordersModule } from '../orders/module.js';
import { paymentsModule } from '../payments/module.js';
import { reviewsModule } from '../reviews/module.js';
import { webhooksModule } from '../webhooks/module.js';

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
