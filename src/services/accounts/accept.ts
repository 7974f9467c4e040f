import type { AppContext } from '../../context.js';
import { AppError, conflict, uniqueViolation, unprocessable, validationFailed } from '../../errors.js';
import { issueAccessToken } from './access-tokens.js';
import { hashPassword, hashToken, maskEmail, verifyPassword } from '../../platform/secrets.js';
import { findUserByEmail, membershipsOf, toUserDto, type UserRow } from './users.js';
import type { InviteRow } from './invites.js';
import { withTransaction } from '../../platform/with-transaction.js';

export interface AcceptInviteInput {
  token: string;
  firstName?: string;
  lastName?: string;
  password?: string;
}

export const invalidInviteToken = () => unprocessable('invalid_token', 'This invite link is invalid, used or expired', [{ path: 'token', message: 'token is invalid or expired' }]);

/** The open invite a token names (not accepted, not revoked, not expired), if any. */
export async function findOpenInvite(ctx: AppContext, token: string): Promise<InviteRow | undefined> {
  return ctx.db('storeInvites')
    .where({ tokenHash: hashToken(token) })
    .whereNull('acceptedAt')
    .whereNull('revokedAt')
    .where('expiresAt', '>', ctx.db.fn.now())
    .first();
}

/**
 * What an invite link is for, for the page it opens: the store, the role, the address (masked: a
 * link may be forwarded) and whether that address already has an account (then the token alone
 * joins; the token proves the address). 422 invalid_token as accepting would answer.
 */
export async function describeInvite(ctx: AppContext, token: string) {
  const invite = await findOpenInvite(ctx, token);
  if (!invite) throw invalidInviteToken();
  const [store, existing] = await Promise.all([ctx.db('stores').where({ id: invite.storeId }).first('name'), findUserByEmail(ctx.db, invite.email)]);
  return { store: { name: String(store?.name ?? '') }, role: invite.role, email: maskEmail(invite.email), hasAccount: Boolean(existing) };
}

/**
 * Accepts an invite. The emailed token proves the address, as a reset link does: an existing
 * account joins with the token alone (a password, when sent, must be right); a new account needs
 * firstName, lastName and password. Claiming the invite in the UPDATE makes the link single-use.
 */
export async function acceptInvite(ctx: AppContext, input: AcceptInviteInput) {
  const tokenHash = hashToken(input.token);
  const invite = await findOpenInvite(ctx, input.token);
  if (!invite) throw invalidInviteToken();

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
    const user = await withTransaction(ctx, async (trx) => {
      const claimed = await trx('storeInvites')
        .where({ id: invite.id, tokenHash })
        .whereNull('acceptedAt')
        .whereNull('revokedAt')
        .where('expiresAt', '>', trx.fn.now())
        .update({ acceptedAt: trx.fn.now(), updatedAt: trx.fn.now() })
        .returning('id');
      if (!claimed.length) throw invalidInviteToken();
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
