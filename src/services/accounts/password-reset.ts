import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { unprocessable } from '../../errors.js';
import { passwordResetRequestJob, type PasswordResetRequest } from '../../jobs/password-reset-request.js';
import { deliverEmail, logQueuedEmail, sealEmailMessage } from '../email/index.js';
import { enqueueJob } from '../../platform/outbox/enqueue.js';
import { decryptSecret, encryptSecret, hashPassword, hashToken, randomSecret } from '../../platform/secrets.js';
import { findUserByEmail, toUserDto } from './users.js';
import { withTransaction } from '../../platform/with-transaction.js';

const RESET_TTL_MS = 3600_000;

export const FORGOT_PASSWORD_MESSAGE = 'If an account exists for that email, a reset link is on its way.';

/**
 * Forgot-password answers before anything depends on whether the account exists: the request is
 * one outbox row, the same for every address, so status and timing tell nothing, and a Redis
 * outage still answers 200 (the relay delivers the job when Redis is back).
 */
export async function forgotPassword(ctx: AppContext, email: string) {
  // The address typed travels sealed: the outbox, Redis and the queue dashboard never show it.
  await enqueueJob(ctx.db, passwordResetRequestJob, { sealedEmail: encryptSecret(email, ctx.config.encryptionKey) });
  return { message: FORGOT_PASSWORD_MESSAGE };
}

/**
 * The job's work: makes the single-use token and mails the link from inside the job, so the plain
 * token exists only here and in the message (never in the outbox, a queue payload or a log).
 */
export async function sendPasswordReset(ctx: AppContext, request: PasswordResetRequest): Promise<{ sent: boolean }> {
  const email = request.sealedEmail ? decryptSecret(request.sealedEmail, ctx.config.encryptionKey) : request.email;
  if (!email) return { sent: false };
  const user = await findUserByEmail(ctx.db, email);
  if (!user) return { sent: false };
  const token = randomSecret(32);
  const emailLogId = randomUUID();
  await withTransaction(ctx, async (trx) => {
    await trx('passwordResets').insert({ userId: user.id, tokenHash: hashToken(token), expiresAt: new Date(Date.now() + RESET_TTL_MS) });
    await logQueuedEmail(trx, { id: emailLogId, storeId: null, to: user.email, templateKey: 'password_reset' });
  });
  await deliverEmail(ctx, {
    emailLogId,
    storeId: null,
    templateKey: 'password_reset',
    sealed: sealEmailMessage(ctx, {
      data: {
        user: toUserDto(user),
        resetUrl: `${ctx.config.adminUrl}/reset-password?token=${encodeURIComponent(token)}`,
        expiresInMinutes: RESET_TTL_MS / 60_000
      }
    })
  });
  return { sent: true };
}

/** Whether a reset link still works (unused, not expired), for the page it opens; changes nothing. */
export async function isResetTokenLive(ctx: AppContext, token: string): Promise<boolean> {
  const row = await ctx.db('passwordResets').where({ tokenHash: hashToken(token) }).whereNull('usedAt').where('expiresAt', '>', ctx.db.fn.now()).first('userId');
  return Boolean(row);
}

export async function resetPassword(ctx: AppContext, token: string, password: string) {
  const passwordHash = await hashPassword(password, ctx.config.passwordHashCost);
  const done = await withTransaction(ctx, async (trx) => {
    // Claiming the row in the UPDATE makes the link single-use even when two resets race.
    const claimed = await trx('passwordResets')
      .where({ tokenHash: hashToken(token) })
      .whereNull('usedAt')
      .where('expiresAt', '>', trx.fn.now())
      .update({ usedAt: trx.fn.now() })
      .returning(['userId']);
    const userId = claimed[0]?.userId as string | undefined;
    if (!userId) return false;
    await trx('users').where({ id: userId }).update({ passwordHash, sessionVersion: trx.raw('session_version + 1'), updatedAt: trx.fn.now() });
    await trx('passwordResets').where({ userId }).whereNull('usedAt').update({ usedAt: trx.fn.now() });
    return true;
  });
  if (!done) throw unprocessable('invalid_token', 'This reset link is invalid or has expired', [{ path: 'token', message: 'token is invalid or expired' }]);
  return { message: 'Your password has been reset. Sign in with the new password.' };
}
