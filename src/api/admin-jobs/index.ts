import type { ServerRoute } from '@hapi/hapi';
import { jobEventsRoute } from './events-route.js';
import { downloadJobFileRoute, getJobRoute, listJobsRoute } from './routes.js';

export const adminJobRoutes: ServerRoute[] = [listJobsRoute, getJobRoute, downloadJobFileRoute, jobEventsRoute];
