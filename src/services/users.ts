import type { AppContext } from '../context.js';
import type { Db } from '../db/knex.js';
import { Membership } from '../db/models/membership.js';
import { User } from '../db/models/user.js';
import type { Role } from './roles.js';

export type UserRow = Pick<User, 'id' | 'email' | 'firstName' | 'lastName' | 'passwordHash' | 'sessionVersion'>;

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

export async function findUserById(db: Db, userId: string): Promise<UserRow | undefined> {
  return User.query(db).findById(userId);
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return User.query(db).whereRaw('lower(email) = ?', [email.toLowerCase()]).first();
}

export async function membershipsOf(db: Db, userId: string): Promise<MembershipDto[]> {
  return db('memberships as m')
    .join('stores as s', 's.id', 'm.storeId')
    .where('m.userId', userId)
    .orderBy('m.createdAt')
    .select('s.id as storeId', 's.name as storeName', 's.slug as storeSlug', 'm.role');
}

export async function findMembership(ctx: AppContext, storeId: string, userId: string): Promise<{ role: Role } | undefined> {
  return Membership.query(ctx.db).findOne({ storeId, userId }).select('role');
}
