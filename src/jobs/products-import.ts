import { trackedJob } from './tracked.js';

/** A product CSV import (`jobs` row type `products.import`); resumes from its checkpoint on retry. */
export const productsImportJob = trackedJob({
  name: 'products-import',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
