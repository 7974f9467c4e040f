import { recordAudit, type AuditOrigin } from './audit/record.js';
import type { AppContext } from '../context.js';
import { PREPARED } from '../db/prepared-statements.js';
import { conflict, unauthenticated, AppError, uniqueViolation, unprocessable } from '../errors.js';
import { issueAccessToken } from './access-tokens.js';
import { authAttemptBuckets } from './auth-limits.js';
import { consumeRateLimit } from './rate-limit.js';
import type { Role } from './roles.js';
import { hashPassword, randomSecret, verifyPassword } from './secrets.js';
import { insertStore } from './stores.js';
import { insertStorefrontToken, newStorefrontSecret } from './storefront-tokens.js';
import { findUserByEmail, findUserById, membershipsOf, toUserDto, type UserRow } from './users.js';
import { withTransaction } from './with-transaction.js';

export interface SignupInput {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  storeName: string;
  storeSlug: string;
}

/** Slugs that would shadow our own hosts or pages. */
export const RESERVED_SLUGS = new Set([
  'admin', 'api', 'app', 'apps', 'assets', 'auth', 'billing', 'blog', 'cdn', 'checkout', 'dashboard', 'docs',
  'help', 'internal', 'login', 'logout', 'mail', 'media', 'public', 'root', 'settings', 'shop', 'shopwright',
  'signup', 'static', 'status', 'store', 'stores', 'storefront', 'support', 'system', 'www'
]);

const invalidCredentials = () => new AppError(401, 'invalid_credentials', 'Email or password is incorrect', undefined, { 'WWW-Authenticate': 'Bearer' });

/** Rate limits shared by the unauthenticated auth routes (see authAttemptBuckets); every attempt counts. */
export async function limitAuthAttempt(ctx: AppContext, action: string, ip: string, email?: string): Promise<void> {
  for (const { bucket, limit } of authAttemptBuckets(ctx, action, ip, email || undefined)) await consumeRateLimit(ctx, bucket, limit);
}

export async function signup(ctx: AppContext, input: SignupInput) {
  if (RESERVED_SLUGS.has(input.storeSlug)) {
    throw unprocessable('validation_failed', 'Request validation failed', [{ path: 'storeSlug', message: 'storeSlug is reserved' }]);
  }
  if (await findUserByEmail(ctx.db, input.email)) throw conflict('email_taken', 'An account with this email already exists', [{ path: 'email', message: 'email is taken' }]);
  if (await ctx.db('stores').whereRaw('lower(slug) = ?', [input.storeSlug]).first('id')) {
    throw conflict('slug_taken', 'This store slug is taken', [{ path: 'storeSlug', message: 'storeSlug is taken' }]);
  }
  const passwordHash = await hashPassword(input.password, ctx.config.passwordHashCost);
  const storefrontToken = newStorefrontSecret();
  try {
    const { user, store } = await withTransaction(ctx, async (trx) => {
      const [user] = await trx('users')
        .insert({ email: input.email, firstName: input.firstName, lastName: input.lastName, passwordHash })
        .returning(['id', 'email', 'firstName', 'lastName', 'sessionVersion']);
      const store = await insertStore(trx, { name: input.storeName, slug: input.storeSlug, contactEmail: input.email });
      await trx('memberships').insert({ storeId: store.id, userId: user.id, role: 'owner' });
      await insertStorefrontToken(trx, store.id, 'Default storefront', storefrontToken);
      return { user, store };
    });
    return {
      user: toUserDto(user),
      store: { id: store.id, name: store.name, slug: store.slug },
      memberships: [{ storeId: store.id, storeName: store.name, storeSlug: store.slug, role: 'owner' as const }],
      storefrontToken,
      accessToken: issueAccessToken(ctx.config, user)
    };
  } catch (error) {
    // Two signups racing past the checks above: the unique indexes decide, nothing is half-created.
    const constraint = uniqueViolation(error);
    if (constraint === 'users_email_key') throw conflict('email_taken', 'An account with this email already exists', [{ path: 'email', message: 'email is taken' }]);
    if (constraint === 'stores_slug_key') throw conflict('slug_taken', 'This store slug is taken', [{ path: 'storeSlug', message: 'storeSlug is taken' }]);
    throw error;
  }
}

// Verifying against a real hash when the email is unknown keeps both answers equally slow.
let decoyHash: Promise<string> | null = null;

/**
 * A sign-in, and a failed one for an existing account, is an audit entry in each store the person
 * is a member of (the log is per store; an unknown email belongs to no store and is only rate-limited).
 */
async function recordSignIn(ctx: AppContext, userId: string, email: string, action: 'user.signed_in' | 'user.sign_in_failed', origin?: AuditOrigin) {
  const storeIds = (await membershipsOf(ctx.db, userId)).map((membership) => membership.storeId);
  if (storeIds.length === 0) return;
  await withTransaction(ctx, async (trx) => {
    for (const storeId of storeIds) await recordAudit(ctx, trx, { storeId, action, resourceType: 'user', resourceId: userId, actor: { type: 'user', userId, email }, details: {}, origin });
  });
}

export async function login(ctx: AppContext, email: string, password: string, origin?: AuditOrigin) {
  const user = await findUserByEmail(ctx.db, email);
  decoyHash ??= hashPassword(randomSecret(16), ctx.config.passwordHashCost);
  const ok = await verifyPassword(password, user?.passwordHash ?? (await decoyHash));
  if (user && !ok) await recordSignIn(ctx, user.id, user.email, 'user.sign_in_failed', origin);
  if (!user || !ok) throw invalidCredentials();
  await recordSignIn(ctx, user.id, user.email, 'user.signed_in', origin);
  return { user: toUserDto(user), memberships: await membershipsOf(ctx.db, user.id), accessToken: issueAccessToken(ctx.config, user) };
}

export async function currentUser(ctx: AppContext, userId: string) {
  const user = await findUserById(ctx.db, userId);
  if (!user) throw unauthenticated('Account no longer exists');
  return { user: toUserDto(user), memberships: await membershipsOf(ctx.db, user.id) };
}

/**
 * Resolves JWT claims to a live user (tokens from before a password reset no longer match) and,
 * for an admin route, the user's role in `storeId` (null: not a member). Runs on every admin
 * request: one prepared statement, only what the check needs, never the password hash.
 */
export async function userForAccessToken(
  ctx: AppContext,
  userId: string,
  sessionVersion: unknown,
  storeId: string | null = null
): Promise<{ id: string; email: string; role: Role | null } | null> {
  if (typeof userId !== 'string' || !/^[0-9a-f-]{36}$/i.test(userId)) return null;
  const result = await ctx.db
    .raw(
      `select u.id, u.email, u.session_version, m.role from users u
         left join memberships m on m.store_id = ?::uuid and m.user_id = u.id
        where u.id = ?`,
      [storeId, userId]
    )
    .options(PREPARED);
  const row = result.rows[0] as { id: string; email: string; sessionVersion: number; role: Role | null } | undefined;
  if (!row || row.sessionVersion !== sessionVersion) return null;
  return { id: row.id, email: row.email, role: row.role };
}

/**
 * Which of these (store, user) pairs are still a member, with their role and session version now:
 * one statement for every person an event-stream check holds (src/api/event-streams/), however
 * many streams they have open. Keyed `${storeId}|${userId}`.
 */
export async function liveMemberships(
  ctx: AppContext,
  refs: Array<{ storeId: string; userId: string }>
): Promise<Map<string, { role: Role; sessionVersion: number }>> {
  if (refs.length === 0) return new Map();
  const rows: Array<{ storeId: string; userId: string; role: Role; sessionVersion: number }> = await ctx
    .db('memberships as m')
    .join('users as u', 'u.id', 'm.userId')
    .whereIn(['m.storeId', 'm.userId'], refs.map((ref) => [ref.storeId, ref.userId]))
    .select('m.storeId', 'm.userId', 'm.role', 'u.sessionVersion');
  return new Map(rows.map((row) => [`${row.storeId}|${row.userId}`, { role: row.role, sessionVersion: row.sessionVersion }]));
}
