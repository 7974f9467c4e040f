import { getJobsByIds, type JobDto } from '../../services/job-history/index.js';
import { ADMINS } from '../../platform/roles.js';
import { eventStream, eventStreamSuccess, type EventStreamTopic } from '../event-stream.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { jobForCaller } from './result-access.js';
import { JOB_RESULT_SCOPE_NOTE } from './schemas.js';

/** Jobs as the event streams follow them: every stream of a store read in one statement per poll. */
const JOBS: EventStreamTopic<JobDto> = {
  name: 'job',
  label: 'Job',
  readMany: getJobsByIds,
  ended: (job) => job.status === 'completed' || job.status === 'failed'
};

/** A job's progress as server-sent events (src/api/event-stream.ts), with the admin API's own auth. */
export const jobEventsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/jobs/{jobId}/events',
  options: {
    description:
      'Server-sent events (text/event-stream) of a job: `progress` with `{ job }` whenever it changes (the first at once), then `end` with `{ job }` once completed or failed; same auth as the admin API (headers, so read it with fetch; EventSource cannot send them). ' +
      JOB_RESULT_SCOPE_NOTE,
    tags: ['jobs'],
    validate: { params: idParams('jobId') },
    plugins: { openapi: { success: eventStreamSuccess('job', 'Job'), errors: [429] } },
    // Each stream shows what its caller may see: a key without the data's scope gets results withheld.
    handler: adminHandler<{ jobId: string }>(({ actor, params, request, h }) => eventStream(request, h, JOBS, params.jobId, (job) => jobForCaller(actor, job)))
  }
});
