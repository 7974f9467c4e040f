/**
 * The face of module job-history: tracked jobs at /admin/jobs: runs, progress, checkpoints, results.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { JOB_STATUSES, completeJob, createJob, findJobRow, getJob, jobFileKey, jobResource, listJobs, markJobActive, recordJobFailure, reportJobProgress, saveJobProgress, toJobDto } from './job-runs.js';
export { jobHistoryModule } from './module.js';
export { savePartitionCheckpoint } from './partition-checkpoints.js';
export { sweepLostJobRuns } from './sweep.js';
