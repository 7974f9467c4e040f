import { getJob } from '../../services/job-history/index.js';
import { ADMINS } from '../../services/accounts/index.js';
import { eventStream, eventStreamSuccess } from '../event-stream.js';
import { tenantOf } from '../plugins/auth.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';

/** A job's progress as server-sent events (src/api/event-stream.ts), with the admin API's own auth. */
export const jobEventsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/jobs/{jobId}/events',
  options: {
    description:
      'Server-sent events (text/event-stream) of a job: `progress` with `{ job }` whenever it changes (the first at once), then `end` with `{ job }` once completed or failed; same auth as the admin API (headers, so read it with fetch; EventSource cannot send them)',
    tags: ['jobs'],
    validate: { params: idParams('jobId') },
    plugins: { openapi: { success: eventStreamSuccess('job', 'Job') } },
    handler: (request, h) => {
      const ctx = request.server.app.ctx;
      const storeId = tenantOf(request).storeId;
      return eventStream(request, h, {
        name: 'job',
        read: () => getJob(ctx, storeId, request.params.jobId as string),
        ended: (job) => job.status === 'completed' || job.status === 'failed'
      });
    }
  }
});
