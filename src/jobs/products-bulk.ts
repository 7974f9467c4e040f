import { trackedJob } from './tracked.js';

/** A bulk edit of products; resumes after its last committed batch. */
export const productsBulkJob = trackedJob({
  name: 'products-bulk',
  type: 'products.bulk',
  // What it changed, product by product: catalog data.
  resultScope: 'read_products',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
