import type { ServerRoute } from '@hapi/hapi';
import { downloadJobFileRoute, getJobRoute, listJobsRoute } from './routes.js';

export const adminJobRoutes: ServerRoute[] = [listJobsRoute, getJobRoute, downloadJobFileRoute];
