import { run as audit } from './audit.js';
import { run as catalog } from './catalog.js';
import { run as catalogExplain } from './catalog-explain.js';
import { run as consoleApp } from './console.js';
import { run as checkout } from './checkout.js';
import { run as checkoutTax } from './checkout-tax.js';
import { run as checkoutProfile } from './checkout-profile.js';
import { run as customersCsv } from './customers-csv.js';
import { run as drafts } from './drafts.js';
import { run as foundation } from './foundation.js';
import { run as marketing } from './marketing.js';
import { run as orderOperations } from './order-operations.js';
import { run as outbox } from './outbox.js';
import { run as queues } from './queue-backends.js';
import { run as processes } from './processes.js';
import { run as products, runMemory as productsMemory } from './products.js';
import { BENCH_DATABASE_TRANSPORT } from './lib/database.js';
import { printGoals } from './lib/goals.js';
import { settle } from './lib/settle.js';
import { run as setup } from './setup.js';
import { run as shipping } from './shipping.js';
import { run as storeOperations } from './store-operations.js';
import { run as webhooks } from './webhooks.js';

/**
 * `npm run bench`: every benchmark in turn, each printing its own numbers. Run one with
 * `npm run bench -- <name>`. Add a module here as `name: run`.
 */
const BENCHMARKS: Record<string, () => Promise<void>> = {
  foundation,
  catalog,
  'catalog-explain': catalogExplain,
  'checkout-profile': checkoutProfile,
  customers: customersCsv,
  products,
  'products-memory': productsMemory,
  outbox,
  marketing,
  checkout,
  shipping,
  'checkout-tax': checkoutTax,
  'store-operations': storeOperations,
  queues,
  webhooks,
  'order-operations': orderOperations,
  drafts,
  setup,
  processes,
  console: consoleApp,
  audit
};

/** Long runs that only run when named (`npm run bench -- products-memory`). */
const NAMED_ONLY = new Set(['products-memory']);

const only = process.argv.slice(2);
console.log(`bench servers reach PostgreSQL by ${BENCH_DATABASE_TRANSPORT} (BENCH_DATABASE_TRANSPORT=tcp for TCP loopback)`);
for (const [name, run] of Object.entries(BENCHMARKS)) {
  if (only.length ? !only.includes(name) : NAMED_ONLY.has(name)) continue;
  // The setup bench brings its own (embedded) PostgreSQL: the machine may have no other.
  if (name !== 'setup') await settle();
  await run();
}
printGoals();
process.exit(0);
