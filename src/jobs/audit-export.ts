import { trackedJob } from './tracked.js';

/** An audit log CSV export (`jobs` row type `audit.export`), downloadable once completed. */
export const auditExportJob = trackedJob({
  name: 'audit-export',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
