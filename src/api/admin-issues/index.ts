import type { ServerRoute } from '@hapi/hapi';
import { listIssuesRoute, resolveIssueRoute } from './routes.js';

export const adminIssueRoutes: ServerRoute[] = [listIssuesRoute, resolveIssueRoute];
