import Joi from 'joi';
import { listScheduledJobs } from '../../services/job-history/index.js';
import { QUEUE_NAMES } from '../../jobs/queues.js';
import { ADMINS } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { responseObject, timestamp } from '../schemas.js';

const scheduledJobResource = responseObject({
  name: Joi.string().required().description('The job kind, also its job scheduler id'),
  queue: Joi.string().valid(...QUEUE_NAMES).required(),
  every: Joi.number().integer().min(1).allow(null).required().description('Milliseconds between runs; null for a cron schedule'),
  pattern: Joi.string().allow(null).required().description('Cron pattern (UTC); null for an interval schedule'),
  nextRunAt: timestamp()
    .allow(null)
    .required()
    .description("The queue's next run; null when it is not known (no worker has registered the schedule yet)"),
  registered: Joi.boolean().required().description('Whether a worker has registered the schedule with the queue')
}).label('ScheduledJob');

const scheduledJobListResponse = responseObject({ scheduledJobs: Joi.array().items(scheduledJobResource).required() });

/** A literal path: hapi's router prefers it to /admin/jobs/{jobId}, so `scheduled` is never read as a job id. */
export const listScheduledJobsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/jobs/scheduled',
  options: {
    description:
      "The platform's scheduled job kinds (the same for every store), in the order they are declared, with their interval (every, ms) or cron pattern and their next run from the queue's job scheduler; nextRunAt is null when it is not known (no worker has registered the schedule yet). An API key needs read_jobs",
    tags: ['jobs'],
    response: { status: { 200: scheduledJobListResponse } },
    handler: adminHandler(async ({ ctx }) => ({ scheduledJobs: await listScheduledJobs(ctx) }))
  }
});
