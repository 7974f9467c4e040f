import type { Request } from '@hapi/hapi';
import { acceptInvite, type AcceptInviteInput, changeMemberRole, createInvite, describeInvite, listTeam, resendInvite, revokeMember } from '../../services/accounts/index.js';
import { ADMINS } from '../../platform/roles.js';
import type { Role } from '../../platform/roles.js';
import { adminHandler, contextOf, publicHandler } from '../handler.js';
import { acceptInviteFormPage, invalidInviteLinkPage, inviteAcceptedPage } from '../account-pages/forms.js';
import { failValidationAsPage, failureMessages, pageForFailure, postedField } from '../public/html-failures.js';
import { htmlPage, wantsHtml, type PageContent } from '../public/html-page.js';
import { adminRoute, publicRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { sessionResponse } from '../auth/schemas.js';
import { acceptInvitePayload, changeRolePayload, createInvitePayload, inviteResponse, memberResponse, revokedMemberResponse, teamResponse } from './schemas.js';

type MemberParams = { userId: string };

export const listTeamRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/team',
  options: {
    description: 'Members of the store in the order they joined (oldest first), and the invites still open (newest first)',
    tags: ['team'],
    response: { status: { 200: teamResponse } },
    handler: adminHandler(({ ctx, storeId }) => listTeam(ctx, storeId))
  }
});

export const createInviteRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/team/invites',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Invite someone by email (a link valid 7 days); only an owner may invite an owner',
    tags: ['team'],
    validate: { payload: createInvitePayload },
    response: { status: { 201: inviteResponse } },
    handler: adminHandler<{}, { email: string; role: Role }>(async ({ ctx, actor, payload, h }) => {
      const invite = await createInvite(ctx, actor, payload);
      return h.response({ invite }).code(201);
    })
  }
});

export const resendInviteRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/team/invites/{inviteId}/resend',
  options: {
    description: 'Send the invite again with a new link; the old link stops working',
    tags: ['team'],
    validate: { params: idParams('inviteId') },
    response: { status: { 200: inviteResponse } },
    handler: adminHandler<{ inviteId: string }>(async ({ ctx, actor, params }) => ({ invite: await resendInvite(ctx, actor, params.inviteId) }))
  }
});

export const revokeMemberRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/team/members/{userId}/revoke',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Remove a member; 409 last_owner for the last owner (only an owner removes an owner). Their API keys are revoked (`member_removed`) at once, in every process',
    tags: ['team'],
    validate: { params: idParams('userId') },
    response: { status: { 200: revokedMemberResponse } },
    handler: adminHandler<MemberParams>(({ ctx, actor, params }) => revokeMember(ctx, actor, params.userId))
  }
});

export const changeMemberRoleRoute = adminRoute(ADMINS, {
  method: 'PATCH',
  path: '/admin/store/team/members/{userId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description:
      "Change a member's role; only an owner makes an owner or changes one, 409 last_owner for the last owner. The member's API keys act within the new role at once, in every process",
    tags: ['team'],
    validate: { params: idParams('userId'), payload: changeRolePayload },
    response: { status: { 200: memberResponse } },
    handler: adminHandler<MemberParams, { role: Role }>(({ ctx, actor, params, payload }) => changeMemberRole(ctx, actor, params.userId, payload.role))
  }
});

export const acceptInviteRoute = publicRoute({
  method: 'POST',
  path: '/auth/accept-invite',
  options: {
    // A browser (Accept: text/html) gets a page, success or failure.
    plugins: { openapi: { errors: [401, 409], html: true } },
    description:
      'Accept a team invite: token, plus firstName, lastName and password for a new account (an existing account: its password, else 401). The invite page posts it as a form: ' +
      'a browser (Accept: text/html) gets a page back instead of JSON.',
    tags: ['auth'],
    payload: { allow: ['application/json', 'application/x-www-form-urlencoded'] },
    validate: { payload: acceptInvitePayload, failAction: failValidationAsPage(inviteFormAgain) },
    response: { status: { 200: sessionResponse } },
    handler: publicHandler<{}, AcceptInviteInput & { passwordConfirmation?: string }>(async ({ ctx, payload, request, h }) => {
      const { passwordConfirmation: _confirmed, ...input } = payload;
      if (!wantsHtml(request)) return acceptInvite(ctx, input);
      try {
        const about = await describeInvite(ctx, input.token);
        try {
          const session = await acceptInvite(ctx, input);
          return htmlPage(h, inviteAcceptedPage(about, session.user.email));
        } catch (error) {
          return pageForFailure(h, error, (failure) => (failure.code === 'invalid_token' ? invalidInviteLinkPage() : acceptInviteFormPage(input.token, about, failureMessages(failure), input)));
        }
      } catch (error) {
        return pageForFailure(h, error, invalidInviteLinkPage);
      }
    })
  }
});

/** The invite page again, with what to fix (or why the link no longer works). */
async function inviteFormAgain(request: Request, messages: string[]): Promise<PageContent> {
  const token = postedField(request, 'token')?.trim();
  if (!token) return invalidInviteLinkPage();
  try {
    const about = await describeInvite(contextOf(request), token);
    return acceptInviteFormPage(token, about, messages, { firstName: postedField(request, 'firstName'), lastName: postedField(request, 'lastName') });
  } catch (error) {
    if ((error as { code?: string }).code !== 'invalid_token') throw error;
    return invalidInviteLinkPage();
  }
}
