import type { ServerRoute } from '@hapi/hapi';
import { acceptInviteRoute, changeMemberRoleRoute, createInviteRoute, listTeamRoute, resendInviteRoute, revokeMemberRoute } from './routes.js';

export const adminTeamRoutes: ServerRoute[] = [listTeamRoute, createInviteRoute, resendInviteRoute, revokeMemberRoute, changeMemberRoleRoute, acceptInviteRoute];
