import { trackedJob } from './tracked.js';

/** A product CSV export (`jobs` row type `products.export`), downloadable once completed. */
export const productsExportJob = trackedJob({
  name: 'products-export',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
