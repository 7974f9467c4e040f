export const ROLES = ['owner', 'admin', 'staff'] as const;
export type Role = (typeof ROLES)[number];

/** Who may call a route: the contract's role matrix, named by what each set can do. */
export const ANY_MEMBER: readonly Role[] = ['owner', 'admin', 'staff'];
export const ADMINS: readonly Role[] = ['owner', 'admin'];
export const OWNERS: readonly Role[] = ['owner'];

export interface Tenant {
  storeId: string;
  userId: string;
  role: Role;
  /** Set when an admin API key (not a person's token) makes the request; `userId` is then the key's creator. */
  apiKeyId?: string;
}

/** The role a key acts with: its creator's current one, never owner (owner-only routes are a person's). */
export const apiKeyRole = (creatorRole: Role): Role => (creatorRole === 'owner' ? 'admin' : creatorRole);
