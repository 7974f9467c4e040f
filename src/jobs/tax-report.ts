import { trackedJob } from './tracked.js';

/** The tax report (issue #34): tax collected and refunded per jurisdiction, tax, rate and month, as CSV, downloadable once completed. */
export const taxReportJob = trackedJob({
  name: 'tax-report',
  type: 'taxes.report',
  // The file is made of the store's orders and refunds.
  resultScope: 'read_orders',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
