import t from 'tap';
import { adminRoutes, bodyFor, urlOf } from '../../helpers/admin-routes.js';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';

type Role = 'owner' | 'admin' | 'staff';
const ALL: Role[] = ['owner', 'admin', 'staff'];
const ADMINS: Role[] = ['owner', 'admin'];
const OWNERS: Role[] = ['owner'];

/**
 * The contract's role matrix, written as rules over paths so every admin route registered now or
 * later is checked: staff get the catalog (products, collections, inventory, media), orders and
 * fulfilment (marking paid, returns; cancel and refunds are for owners and admins), customers
 * (read/update, no import/export), review moderation, the dashboard, shipping zones and tax regions read; the payment-provider connect/reset/dashboard link is owner-only; everything else is for
 * owners and admins.
 */
function allowedRoles(method: string, path: string): Role[] {
  if (/^\/admin\/store\/payments\/(onboarding-link|dashboard-link|reset)$/.test(path)) return OWNERS;
  if (/^\/admin\/orders\/\{orderId\}\/(cancel|refunds|refunds\/\{refundId\}\/retry)$/.test(path)) return ADMINS;
  // Staff may draft orders, edit and exchange them (a change that refunds is refused to staff by the service: 403),
  // and void an edit's balance payment link (it moves no money: it stops asking for it).
  if (/^\/admin\/(products|collections|orders|draft-orders|returns|reviews)(\/|$)/.test(path)) return ALL;
  if (path === '/admin/store/media') return ALL;
  if (path === '/admin/store' && method === 'GET') return ALL;
  if (/^\/admin\/customers(\/\{customerId\})?$/.test(path) && ['GET', 'PATCH'].includes(method)) return ALL;
  // Staff take phone orders: they may create a customer by hand (deleting one is for owners and admins).
  if (path === '/admin/customers' && method === 'POST') return ALL;
  if (/^\/admin\/shipping-zones(\/|$)/.test(path) && method === 'GET') return ALL;
  // Tax regions (issue #34): members read them, owners and admins change them.
  if (/^\/admin\/tax-regions(\/\{regionId\})?$/.test(path) && method === 'GET') return ALL;
  return ADMINS;
}

t.test('each role against every admin route: 403 exactly where the matrix says, never a 5xx', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  const members: Record<Role, { accessToken: string }> = {
    owner,
    admin: await addMember(app, owner.store.id, 'admin'),
    staff: await addMember(app, owner.store.id, 'staff')
  };
  const routes = adminRoutes(app);
  t.ok(routes.length >= 30, `${routes.length} admin routes`);

  for (const route of routes) {
    t.ok(route.declared, `${route.method} ${route.path} declares its roles`);
    t.same([...(route.declared ?? [])].sort(), [...allowedRoles(route.method, route.path)].sort(), `${route.method} ${route.path} roles match the contract`);
  }

  // Least privileged first, so an owner's successful destructive call cannot hide a staff answer.
  for (const role of ['staff', 'admin', 'owner'] as Role[]) {
    for (const route of routes) {
      const url = urlOf(route);
      const body = bodyFor(route.accepts);
      const response = await app.request({ method: route.method, url, token: members[role].accessToken, storeId: owner.store.id, ...body });
      const allowed = allowedRoles(route.method, route.path).includes(role);
      t.ok(response.status < 500, `${role} ${route.method} ${url}: no 5xx (${response.status})`);
      if (allowed) t.not(response.status, 403, `${role} may call ${route.method} ${route.path}`);
      else {
        t.equal(response.status, 403, `${role} refused on ${route.method} ${route.path}`);
        t.equal(response.body.error?.code, 'forbidden');
      }
    }
  }
});
