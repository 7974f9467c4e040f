import type { ModuleContribution } from './contribution.js';
import { catalogModule } from '../catalog/module.js';
import { customersModule } from '../customers/module.js';
import { domainsModule } from '../domains/module.js';
import { issuesModule } from '../issues/module.js';
import { marketingModule } from '../marketing/module.js';
import { ordersModule } from '../orders/module.js';
import { paymentsModule } from '../payments/module.js';
import { reviewsModule } from '../reviews/module.js';

/** Every installed module's contribution. Add one line per module. */
export const MODULES: ModuleContribution[] = [
  catalogModule,
  customersModule,
  issuesModule,
  ordersModule,
  reviewsModule,
  paymentsModule,
  domainsModule,
  marketingModule
];
