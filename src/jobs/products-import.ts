import { trackedJob } from './tracked.js';

/** A product CSV import; resumes from its checkpoint on retry. */
export const productsImportJob = trackedJob({
  name: 'products-import',
  type: 'products.import',
  // Its row errors quote the file's cells: catalog data.
  resultScope: 'read_products',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
