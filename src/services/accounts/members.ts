import { recordAudit } from '../audit/index.js';
import type { AppContext } from '../../context.js';
import { conflict, forbidden, notFound } from '../../errors.js';
import { forgetApiKeys, keysOfMember, revokeKeysOfMember } from '../api-keys/index.js';
import type { Role, Tenant } from '../../platform/roles.js';
import { listOpenInvites } from './invites.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Sql, Transaction } from '../../db/transaction.js';

export interface MemberDto {
  userId: string;
  email: string;
  firstName: string;
  lastName: string;
  role: Role;
  joinedAt: Date;
}

/** Members of a store with their account's name and email (callers add order or a filter). */
const memberRows = (db: Sql, storeId: string) =>
  db('memberships as m')
    .join('users as u', 'u.id', 'm.userId')
    .where('m.storeId', storeId)
    .select('m.userId', 'u.email', 'u.firstName', 'u.lastName', 'm.role', 'm.createdAt as joinedAt');

export async function listTeam(ctx: AppContext, storeId: string) {
  const [members, invites] = await Promise.all([
    memberRows(ctx.db, storeId).orderBy([{ column: 'm.createdAt', order: 'asc' }, { column: 'm.userId', order: 'asc' }]) as Promise<MemberDto[]>,
    listOpenInvites(ctx.db, storeId)
  ]);
  return { members, invites };
}

/**
 * The locks a membership change takes, in one order: the store's owners (stable order, so two owners
 * acting on each other serialise), then the actor, re-read (a request that held the lock before us
 * may have removed them: 403), then the target member (404 when absent).
 */
async function lockMembershipChange(trx: Transaction, actor: Tenant, userId: string) {
  const owners: Array<{ userId: string }> = await trx('memberships')
    .where({ storeId: actor.storeId, role: 'owner' })
    .orderBy('userId')
    .forUpdate()
    .select('userId');
  const stillMember: { role: Role } | undefined = await trx('memberships').where({ storeId: actor.storeId, userId: actor.userId }).first('role');
  if (!stillMember) throw forbidden('You are not a member of this store');
  const target: { userId: string; role: Role } | undefined = await trx('memberships')
    .where({ storeId: actor.storeId, userId })
    .forUpdate()
    .first('userId', 'role');
  if (!target) throw notFound('Member');
  return { owners, stillMember, target };
}

/**
 * Removes a membership. Owners are locked first (in a stable order), so two owners revoking each
 * other at the same time cannot both succeed and leave the store without an owner. The member's API
 * keys are revoked in the same transaction (`member_removed`) and, once it commits, dropped from
 * every process's cache: a key never outlives its creator's membership.
 */
export async function revokeMember(ctx: AppContext, actor: Tenant, userId: string) {
  const { result, staleKeys } = await withTransaction(ctx, async (trx) => {
    const { owners, stillMember, target } = await lockMembershipChange(trx, actor, userId);
    if (target.role === 'owner') {
      if (stillMember.role !== 'owner') throw forbidden('Only an owner can remove an owner');
      if (owners.length <= 1) throw conflict('last_owner', 'The last owner of a store cannot be removed', [{ path: 'userId', message: 'last owner' }]);
    }
    await trx('memberships').where({ storeId: actor.storeId, userId }).delete();
    const staleKeys = await revokeKeysOfMember(trx, actor.storeId, userId);
    await recordAudit(ctx, trx, { storeId: actor.storeId, action: 'member.removed', resourceType: 'member', resourceId: userId, before: { role: target.role }, after: null, details: { role: target.role, apiKeysRevoked: staleKeys.length } });
    return { result: { member: { userId, role: target.role, revoked: true as const } }, staleKeys };
  });
  await forgetApiKeys(ctx, staleKeys);
  return result;
}

/**
 * Changes a member's role. Only an owner makes an owner or changes one, and the last owner cannot
 * step down (409 last_owner); owners are locked first, as when removing a member. The member's API
 * keys are not rewritten: they act within their creator's current role on every request, so once
 * this commits their cached role is dropped in every process and a lowered role narrows them at once.
 */
export async function changeMemberRole(ctx: AppContext, actor: Tenant, userId: string, role: Role) {
  const { member, staleKeys } = await withTransaction(ctx, async (trx) => {
    const { owners, stillMember, target } = await lockMembershipChange(trx, actor, userId);
    if ((target.role === 'owner' || role === 'owner') && target.role !== role && stillMember.role !== 'owner') {
      throw forbidden('Only an owner can make an owner or change an owner\'s role');
    }
    if (target.role === 'owner' && role !== 'owner' && owners.length <= 1) {
      throw conflict('last_owner', 'The last owner of a store cannot step down', [{ path: 'role', message: 'last owner' }]);
    }
    if (target.role === role) return { member: await memberRows(trx, actor.storeId).where('m.userId', userId).first(), staleKeys: [] };
    await trx('memberships').where({ storeId: actor.storeId, userId }).update({ role });
    const staleKeys = await keysOfMember(trx, actor.storeId, userId);
    await recordAudit(ctx, trx, { storeId: actor.storeId, action: 'member.role_changed', resourceType: 'member', resourceId: userId, before: { role: target.role }, after: { role } });
    return { member: await memberRows(trx, actor.storeId).where('m.userId', userId).first(), staleKeys };
  });
  await forgetApiKeys(ctx, staleKeys);
  return { member: member as MemberDto };
}
