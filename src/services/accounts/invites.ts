import type { AppContext } from '../../context.js';
import { conflict, forbidden, notFound, uniqueViolation } from '../../errors.js';
import { enqueueEmail } from '../email/index.js';
import type { Role, Tenant } from '../../platform/roles.js';
import { hashToken, randomSecret } from '../../platform/secrets.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Sql, Transaction } from '../../db/transaction.js';

export const INVITE_TTL_MS = 7 * 24 * 3600_000;

export const INVITE_STATUSES = ['pending', 'accepted', 'expired', 'revoked'] as const;
export type InviteStatus = (typeof INVITE_STATUSES)[number];

export interface InviteRow {
  id: string;
  storeId: string;
  email: string;
  role: Role;
  tokenHash: string;
  invitedBy: string | null;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

export function inviteStatus(row: Pick<InviteRow, 'acceptedAt' | 'revokedAt' | 'expiresAt'>, now = Date.now()): InviteStatus {
  if (row.acceptedAt) return 'accepted';
  if (row.revokedAt) return 'revoked';
  return new Date(row.expiresAt).getTime() <= now ? 'expired' : 'pending';
}

export const toInviteDto = (row: InviteRow) => ({
  id: row.id,
  email: row.email,
  role: row.role,
  status: inviteStatus(row),
  expiresAt: row.expiresAt,
  createdAt: row.createdAt
});

/**
 * The console's accept page (`/app/accept-invite`, served wherever the service answers; an ADMIN_URL
 * already ending in /app is used as it is): the invitee
 * lands in the console, signed in once they accept. The HTML form at `/accept-invite` (no script
 * needed) stays for links already sent.
 */
export const inviteUrl = (ctx: AppContext, token: string) => {
  const consoleUrl = /\/app$/.test(ctx.config.adminUrl) ? ctx.config.adminUrl : `${ctx.config.adminUrl}/app`;
  return `${consoleUrl}/accept-invite?token=${encodeURIComponent(token)}`;
};

/** Only an owner may hand out the owner role. */
function assertMayGrant(actor: Tenant, role: Role): void {
  if (role === 'owner' && actor.role !== 'owner') throw forbidden('Only an owner can invite another owner');
}

async function sendInviteEmail(ctx: AppContext, trx: Transaction, storeId: string, invite: InviteRow, token: string, inviterId: string) {
  const [store, inviter] = await Promise.all([
    trx('stores').where({ id: storeId }).first('name'),
    trx('users').where({ id: inviterId }).first('firstName', 'lastName')
  ]);
  await enqueueEmail(ctx, {
    storeId,
    to: invite.email,
    templateKey: 'team_invite',
    data: {
      store: { name: store?.name ?? '' },
      inviter: { firstName: inviter?.firstName ?? '', lastName: inviter?.lastName ?? '' },
      invite: { role: invite.role, email: invite.email, expiresAt: invite.expiresAt },
      inviteUrl: inviteUrl(ctx, token)
    }
  }, { trx });
}

/**
 * Invites an address to the store. Inviting an address that already has an open invite refreshes
 * that invite (new role, new link, new 7 days) rather than stacking a second one.
 */
export async function createInvite(ctx: AppContext, actor: Tenant, input: { email: string; role: Role }) {
  assertMayGrant(actor, input.role);
  const email = input.email.toLowerCase();
  const token = randomSecret(32);
  const expiresAt = new Date(Date.now() + INVITE_TTL_MS);
  try {
    const invite = await withTransaction(ctx, async (trx) => {
      const member = await trx('memberships as m')
        .join('users as u', 'u.id', 'm.userId')
        .where('m.storeId', actor.storeId)
        .whereRaw('lower(u.email) = ?', [email])
        .first('m.id');
      if (member) throw conflict('conflict', 'This person is already a member of the store', [{ path: 'email', message: 'already a member' }]);
      const existing: InviteRow | undefined = await trx('storeInvites')
        .where({ storeId: actor.storeId })
        .whereRaw('lower(email) = ?', [email])
        .whereNull('acceptedAt')
        .whereNull('revokedAt')
        .forUpdate()
        .first();
      const values = { role: input.role, tokenHash: hashToken(token), expiresAt, invitedBy: actor.userId, updatedAt: trx.fn.now() };
      const [row]: InviteRow[] = existing
        ? await trx('storeInvites').where({ id: existing.id }).update(values).returning('*')
        : await trx('storeInvites').insert({ storeId: actor.storeId, email, ...values }).returning('*');
      await sendInviteEmail(ctx, trx, actor.storeId, row!, token, actor.userId);
      return row!;
    });
    return toInviteDto(invite);
  } catch (error) {
    // Two invites for one address racing: the partial unique index lets one through.
    if (uniqueViolation(error) === 'store_invites_open_key') {
      throw conflict('conflict', 'An invite for this address is already being created', [{ path: 'email', message: 'invite exists' }]);
    }
    throw error;
  }
}

/** A new token and a new email; the hash of the old token is gone, so the old link is dead. */
export async function resendInvite(ctx: AppContext, actor: Tenant, inviteId: string) {
  const token = randomSecret(32);
  const invite = await withTransaction(ctx, async (trx) => {
    const current: InviteRow | undefined = await trx('storeInvites').where({ id: inviteId, storeId: actor.storeId }).forUpdate().first();
    if (!current) throw notFound('Invite');
    assertMayGrant(actor, current.role);
    if (current.acceptedAt) throw conflict('conflict', 'This invite has already been accepted');
    if (current.revokedAt) throw conflict('conflict', 'This invite has been revoked');
    const [row]: InviteRow[] = await trx('storeInvites')
      .where({ id: inviteId })
      .update({ tokenHash: hashToken(token), expiresAt: new Date(Date.now() + INVITE_TTL_MS), invitedBy: actor.userId, updatedAt: trx.fn.now() })
      .returning('*');
    await sendInviteEmail(ctx, trx, actor.storeId, row!, token, actor.userId);
    return row!;
  });
  return toInviteDto(invite);
}

/** Invites still waiting for an answer (pending or expired), newest first. */
export async function listOpenInvites(db: Sql, storeId: string) {
  const rows: InviteRow[] = await db('storeInvites')
    .where({ storeId })
    .whereNull('acceptedAt')
    .whereNull('revokedAt')
    .orderBy('createdAt', 'desc')
    .limit(500);
  return rows.map(toInviteDto);
}
