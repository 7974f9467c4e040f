/**
 * The face of module job-history: tracked jobs at /admin/jobs: runs, progress, checkpoints, results.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { JOB_STATUSES, completeJob, createJob, findJobRow, getJob, getJobsByIds, INSERT_JOB_ROW_ERRORS_SQL, insertJobRowErrors, jobFileKey, jobResource, listJobs, markJobActive, recordJobFailure, reportJobProgress, saveJobProgress, saveJobProgressFrom, toJobDto, type JobDto } from './job-runs.js';
export { CANCELLED_MESSAGE, cancelJob, retryJob } from './job-controls.js';
export { listScheduledJobs, type ScheduledJobDto } from './scheduled.js';
export { jobHistoryModule } from './module.js';
export { savePartitionCheckpoint } from './partition-checkpoints.js';
export { sweepLostJobRuns } from './sweep.js';
