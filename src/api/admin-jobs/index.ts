import type { ServerRoute } from '@hapi/hapi';
import { cancelJobRoute, retryJobRoute } from './control-routes.js';
import { jobEventsRoute } from './events-route.js';
import { listScheduledJobsRoute } from './scheduled-route.js';
import { downloadJobFileRoute, getJobRoute, listJobsRoute } from './routes.js';

export const adminJobRoutes: ServerRoute[] = [listJobsRoute, listScheduledJobsRoute, getJobRoute, downloadJobFileRoute, jobEventsRoute, retryJobRoute, cancelJobRoute];
