import type { AppContext } from '../../context.js';
import type { Role } from '../../platform/roles.js';
import type { Sql } from '../../db/transaction.js';

/** A `users` row (the columns sign-in and the token check read). */
export interface UserRow {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  passwordHash: string;
  sessionVersion: number;
}

export interface MembershipDto {
  storeId: string;
  storeName: string;
  storeSlug: string;
  role: Role;
}

export const toUserDto = (user: Pick<UserRow, 'id' | 'email' | 'firstName' | 'lastName'>) => ({
  id: user.id,
  email: user.email,
  firstName: user.firstName,
  lastName: user.lastName
});

export async function findUserById(db: Sql, userId: string): Promise<UserRow | undefined> {
  return db('users').where({ id: userId }).first();
}

export async function findUserByEmail(db: Sql, email: string): Promise<UserRow | undefined> {
  return db('users').whereRaw('lower(email) = ?', [email.toLowerCase()]).first();
}

export async function membershipsOf(db: Sql, userId: string): Promise<MembershipDto[]> {
  return db('memberships as m')
    .join('stores as s', 's.id', 'm.storeId')
    .where('m.userId', userId)
    .orderBy('m.createdAt')
    .select('s.id as storeId', 's.name as storeName', 's.slug as storeSlug', 'm.role');
}

export async function findMembership(ctx: AppContext, storeId: string, userId: string): Promise<{ role: Role } | undefined> {
  return ctx.db('memberships').where({ storeId, userId }).first('role');
}
