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
}
