import type { AppContext } from '../../context.js';
import { AppError, conflict, uniqueViolation, unprocessable, validationFailed } from '../../errors.js';
import { issueAccessToken } from '../access-tokens.js';
import { hashPassword, hashToken, verifyPassword } from '../secrets.js';
import { findUserByEmail, membershipsOf, toUserDto, type UserRow } from '../users.js';
import type { InviteRow } from './invites.js';

export interface AcceptInviteInput {
  token: string;
  firstName?: string;
  lastName?: string;
  password?: string;
}

const invalidToken = () => unprocessable('invalid_token', 'This invite link is invalid, used or expired', [{ path: 'token', message: 'token is invalid or expired' }]);

/**
 * Accepts an invite. The emailed token proves the address, as a reset link does: an existing
 * account joins with the token alone (a password, when sent, must be right); a new account needs
 * firstName, lastName and password. Claiming the invite in the UPDATE makes the link single-use.
 */
export async function acceptInvite(ctx: AppContext, input: AcceptInviteInput) {
  const tokenHash = hashToken(input.token);
  const invite: InviteRow | undefined = await ctx.db('storeInvites')
    .where({ tokenHash })
    .whereNull('acceptedAt')
    .whereNull('revokedAt')
    .where('expiresAt', '>', ctx.db.fn.now())
    .first();
  if (!invite) throw invalidToken();

  const existing = await findUserByEmail(ctx.db, invite.email);
  let passwordHash: string | null = null;
  if (existing) {
    if (input.password !== undefined && !(await verifyPassword(input.password, existing.passwordHash))) {
      throw new AppError(401, 'invalid_credentials', 'Email or password is incorrect', undefined, { 'WWW-Authenticate': 'Bearer' });
    }
  } else {
    const missing = (['firstName', 'lastName', 'password'] as const).filter((key) => !input[key]);
    if (missing.length) throw validationFailed(missing.map((key) => ({ path: key, message: `${key} is required to create an account` })));
    passwordHash = await hashPassword(input.password!, ctx.config.passwordHashCost);
  }

  try {
    const user = await ctx.db.transaction(async (trx) => {
      const claimed = await trx('storeInvites')
        .where({ id: invite.id, tokenHash })
        .whereNull('acceptedAt')
        .whereNull('revokedAt')
        .where('expiresAt', '>', trx.fn.now())
        .update({ acceptedAt: trx.fn.now(), updatedAt: trx.fn.now() })
        .returning('id');
      if (!claimed.length) throw invalidToken();
      let user: UserRow | undefined = existing;
      if (!user) {
        [user] = await trx('users')
          .insert({ email: invite.email, firstName: input.firstName, lastName: input.lastName, passwordHash })
          .returning(['id', 'email', 'firstName', 'lastName', 'sessionVersion', 'passwordHash']);
      }
      await trx('storeInvites').where({ id: invite.id }).update({ acceptedBy: user!.id });
      // Already a member (joined another way meanwhile): the existing role stands.
      await trx('memberships').insert({ storeId: invite.storeId, userId: user!.id, role: invite.role }).onConflict(['storeId', 'userId']).ignore();
      return user!;
    });
    return { user: toUserDto(user), memberships: await membershipsOf(ctx.db, user.id), accessToken: issueAccessToken(ctx.config, user) };
  } catch (error) {
    if (uniqueViolation(error) === 'users_email_key') throw conflict('email_taken', 'An account with this email already exists', [{ path: 'email', message: 'email is taken' }]);
    throw error;
  }
}
