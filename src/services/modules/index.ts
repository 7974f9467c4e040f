import type { ModuleContribution } from './contribution.js';
import { catalogModule } from '../catalog/module.js';
import { customersModule } from '../customers/module.js';
import { issuesModule } from '../issues/module.js';
import { domainsModule } from '../domains/module.js';

/** Every installed module's contribution. Add one line per module. */
export const MODULES: ModuleContribution[] = [catalogModule, customersModule, issuesModule, domainsModule];
