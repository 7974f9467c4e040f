import { trackedJob } from './tracked.js';

/** An audit log CSV export, downloadable once completed. */
export const auditExportJob = trackedJob({
  name: 'audit-export',
  type: 'audit.export',
  // The file is the audit log: who did what, with their emails and addresses.
  resultScope: 'read_audit',
  queue: 'imports',
  options: { attempts: 3 },
  concurrency: 1
});
