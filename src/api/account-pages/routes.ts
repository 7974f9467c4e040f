import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { describeInvite, isResetTokenLive } from '../../services/accounts/index.js';
import { publicHandler } from '../handler.js';
import { pageForFailure } from '../public/html-failures.js';
import { htmlPage } from '../public/html-page.js';
import { acceptInviteFormPage, invalidInviteLinkPage, invalidResetLinkPage, resetPasswordFormPage } from './forms.js';

// Mail clients and link scanners add their own query parameters: only the token matters.
const linkQuery = Joi.object({ token: Joi.string().trim().max(200).allow('') }).unknown(true);
type LinkQuery = { token?: string };
const pageOptions = { auth: false as const, tags: ['pages'] };

/** `ADMIN_URL/reset-password?token=`: a form for the new password, or why the link no longer works. Changes nothing. */
export const resetPasswordPage: ServerRoute = {
  method: 'GET',
  path: '/reset-password',
  options: {
    ...pageOptions,
    description: 'The page a password-reset email links to (HTML)',
    validate: { query: linkQuery, failAction: (_request, h) => htmlPage(h, invalidResetLinkPage(), 422).takeover() },
    handler: publicHandler<{}, undefined, LinkQuery>(async ({ ctx, query, h }) => {
      const { token } = query;
      if (!token || !(await isResetTokenLive(ctx, token))) return htmlPage(h, invalidResetLinkPage(), 422);
      return htmlPage(h, resetPasswordFormPage(token));
    })
  }
};

/** `ADMIN_URL/accept-invite?token=`: what the invite is for and the form that accepts it. Changes nothing. */
export const acceptInvitePage: ServerRoute = {
  method: 'GET',
  path: '/accept-invite',
  options: {
    ...pageOptions,
    description: 'The page a team invite email links to (HTML)',
    validate: { query: linkQuery, failAction: (_request, h) => htmlPage(h, invalidInviteLinkPage(), 422).takeover() },
    handler: publicHandler<{}, undefined, LinkQuery>(async ({ ctx, query, h }) => {
      const { token } = query;
      if (!token) return htmlPage(h, invalidInviteLinkPage(), 422);
      try {
        return htmlPage(h, acceptInviteFormPage(token, await describeInvite(ctx, token)));
      } catch (error) {
        return pageForFailure(h, error, invalidInviteLinkPage);
      }
    })
  }
};
