import { cancelJob, CANCELLED_MESSAGE, retryJob } from '../../services/job-history/index.js';
import { ADMINS } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { jobForCaller } from './result-access.js';
import { jobResponse } from './schemas.js';

type JobParams = { jobId: string };

export const retryJobRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/jobs/{jobId}/retry',
  options: {
    plugins: { openapi: { errors: [409] } },
    description:
      'Run a failed job again from where it stopped (an import resumes after its last committed batch): it is queued again with its error cleared. 409 job_not_retryable unless the job is failed, 409 job_input_gone when its uploaded file was already given up (upload it again). Owner or admin, never an API key',
    tags: ['jobs'],
    validate: { params: idParams('jobId') },
    response: { status: { 200: jobResponse } },
    handler: adminHandler<JobParams>(async ({ ctx, storeId, actor, params }) => ({ job: jobForCaller(actor, await retryJob(ctx, storeId, params.jobId)) }))
  }
});

export const cancelJobRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/jobs/{jobId}/cancel',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: `Cancel a queued job no worker has started (also one waiting between attempts): it ends failed with the error "${CANCELLED_MESSAGE}" and may be retried later. 409 job_not_cancellable once it runs or has ended. Owner or admin, never an API key`,
    tags: ['jobs'],
    validate: { params: idParams('jobId') },
    response: { status: { 200: jobResponse } },
    handler: adminHandler<JobParams>(async ({ ctx, storeId, actor, params }) => ({ job: jobForCaller(actor, await cancelJob(ctx, storeId, params.jobId)) }))
  }
});
