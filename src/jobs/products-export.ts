import { trackedJob } from './tracked.js';

/** A product CSV export, downloadable once completed. */
export const productsExportJob = trackedJob({
  name: 'products-export',
  type: 'products.export',
  // The file is the catalog.
  resultScope: 'read_products',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
