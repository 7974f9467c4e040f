import type { AppContext } from '../../context.js';
import { conflict, forbidden, notFound } from '../../errors.js';
import type { Role, Tenant } from './roles.js';
import { listOpenInvites } from './invites.js';
import { withTransaction } from '../../platform/with-transaction.js';

export interface MemberDto {
  userId: string;
  email: string;
  firstName: string;
  lastName: string;
  role: Role;
  joinedAt: Date;
}

export async function listTeam(ctx: AppContext, storeId: string) {
  const [members, invites] = await Promise.all([
    ctx
      .db('memberships as m')
      .join('users as u', 'u.id', 'm.userId')
      .where('m.storeId', storeId)
      .orderBy([{ column: 'm.createdAt', order: 'asc' }, { column: 'm.userId', order: 'asc' }])
      .select('m.userId', 'u.email', 'u.firstName', 'u.lastName', 'm.role', 'm.createdAt as joinedAt') as Promise<MemberDto[]>,
    listOpenInvites(ctx.db, storeId)
  ]);
  return { members, invites };
}

/**
 * Removes a membership. Owners are locked first (in a stable order), so two owners revoking each
 * other at the same time cannot both succeed and leave the store without an owner.
 */
export async function revokeMember(ctx: AppContext, actor: Tenant, userId: string) {
  return withTransaction(ctx, async (trx) => {
    const owners: Array<{ userId: string }> = await trx('memberships')
      .where({ storeId: actor.storeId, role: 'owner' })
      .orderBy('userId')
      .forUpdate()
      .select('userId');
    // The actor may have been removed by a request that held the lock before us.
    const stillMember = await trx('memberships').where({ storeId: actor.storeId, userId: actor.userId }).first('role');
    if (!stillMember) throw forbidden('You are not a member of this store');
    const target: { userId: string; role: Role } | undefined = await trx('memberships')
      .where({ storeId: actor.storeId, userId })
      .forUpdate()
      .first('userId', 'role');
    if (!target) throw notFound('Member');
    if (target.role === 'owner') {
      if (stillMember.role !== 'owner') throw forbidden('Only an owner can remove an owner');
      if (owners.length <= 1) throw conflict('last_owner', 'The last owner of a store cannot be removed', [{ path: 'userId', message: 'last owner' }]);
    }
    await trx('memberships').where({ storeId: actor.storeId, userId }).delete();
    return { member: { userId, role: target.role, revoked: true } };
  });
}
