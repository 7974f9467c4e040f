import type { ServerRoute } from '@hapi/hapi';
import { acceptInvitePage, resetPasswordPage } from './routes.js';

/** HTML pages at the site root (not under /api/v1), where the emailed links point when ADMIN_URL is this service. */
export const accountPageRoutes: ServerRoute[] = [resetPasswordPage, acceptInvitePage];
