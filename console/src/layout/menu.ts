import type { Role } from '../api/me';

export interface MenuItem {
  label: string;
  to: string;
  roles: readonly Role[];
}

const ALL: readonly Role[] = ['owner', 'admin', 'staff'];
const ADMINS: readonly Role[] = ['owner', 'admin'];

/** What each role may open (API.md, Roles): staff see catalog (products, collections), orders, customers and review moderation, nothing else. */
export const MENU: MenuItem[] = [
  { label: 'Home', to: '/', roles: ALL },
  { label: 'Orders', to: '/orders', roles: ALL },
  { label: 'Draft orders', to: '/draft-orders', roles: ALL },
  { label: 'Products', to: '/products', roles: ALL },
  { label: 'Collections', to: '/collections', roles: ALL },
  { label: 'Customers', to: '/customers', roles: ALL },
  { label: 'Reviews', to: '/reviews', roles: ALL },
  { label: 'Discounts', to: '/discounts', roles: ADMINS },
  { label: 'Marketing', to: '/marketing', roles: ADMINS },
  { label: 'Email templates', to: '/marketing/templates', roles: ADMINS },
  { label: 'Lists and audiences', to: '/marketing/audiences', roles: ADMINS },
  { label: 'Jobs', to: '/jobs', roles: ADMINS },
  { label: 'Store settings', to: '/settings/store', roles: ADMINS },
  { label: 'Shipping', to: '/settings/shipping', roles: ADMINS },
  { label: 'Taxes', to: '/settings/taxes', roles: ADMINS },
  { label: 'Email', to: '/settings/email', roles: ADMINS },
  { label: 'Domain and payments', to: '/settings/domain-payments', roles: ADMINS },
  { label: 'Team', to: '/settings/team', roles: ADMINS },
  { label: 'Storefront tokens', to: '/settings/storefront-tokens', roles: ADMINS },
  { label: 'API keys', to: '/settings/api-keys', roles: ADMINS },
  { label: 'Webhooks', to: '/settings/webhooks', roles: ADMINS },
  { label: 'Audit log', to: '/settings/audit-log', roles: ADMINS }
];

export const menuFor = (role: Role) => MENU.filter((item) => item.roles.includes(role));
export const canImport = (role: Role) => ADMINS.includes(role);
