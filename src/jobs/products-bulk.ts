import { trackedJob } from './tracked.js';

/** A bulk edit of products (`jobs` row type `products.bulk`); resumes after its last committed batch. */
export const productsBulkJob = trackedJob({
  name: 'products-bulk',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
