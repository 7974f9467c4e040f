import t from 'tap';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../../src/services/api-keys/scopes.js';
import { adminRoutes, bodyFor, urlOf } from '../../helpers/admin-routes.js';
import { buildApp, signupOwner } from '../../helpers/app.js';

/**
 * The API key scopes as rules over paths, the contract this test holds the server and its document
 * to (like test/integration/api/role-matrix.test.ts for roles): reads (GET, HEAD) need the read scope of their area,
 * every other method the write scope; the customer export hands out every customer, so starting it
 * needs read_customers; discounts belong to marketing; jobs need read_jobs (retrying or cancelling one is a member's: no key); the audit log (reading,
 * verifying, exporting it) needs read_audit; shipping zones read_shipping and write_shipping. Everything else under
 * /admin/store (settings, team, API keys, webhooks, payments, domain, email, issues, …) is a signed-in
 * member's: no key at all (null).
 */
function contractScope(method: string, path: string): ApiKeyScope | null {
  const read = method === 'GET' || method === 'HEAD';
  if (/^\/admin\/(products|collections|reviews)(\/|$)/.test(path) || path === '/admin/store/media') return read ? 'read_products' : 'write_products';
  if (/^\/admin\/(orders|draft-orders|returns)(\/|$)/.test(path)) return read ? 'read_orders' : 'write_orders';
  if (path === '/admin/customers/export') return 'read_customers';
  if (/^\/admin\/customers(\/|$)/.test(path)) return read ? 'read_customers' : 'write_customers';
  if (/^\/admin\/(discounts|marketing)(\/|$)/.test(path)) return 'marketing';
  // Tax rates are pricing (issue #34): the catalog's scopes; the tax report reads orders.
  if (/^\/admin\/tax-regions(\/|$)/.test(path)) return read ? 'read_products' : 'write_products';
  if (path === '/admin/reports/tax') return 'read_orders';
  if (/^\/admin\/jobs\/\{jobId\}\/(retry|cancel)$/.test(path)) return null;
  if (/^\/admin\/jobs(\/|$)/.test(path)) return 'read_jobs';
  if (/^\/admin\/store\/audit-log(\/|$)/.test(path)) return 'read_audit';
  if (/^\/admin\/shipping-zones(\/|$)/.test(path)) return read ? 'read_shipping' : 'write_shipping';
  return null;
}

/**
 * Issue #31 (3): every admin route against a key holding each single scope. Generated from the
 * registered routes, so a new route is covered the day it is added: its documented scope
 * (`x-api-key-scope` in /openapi.json) must be the contract's, and a key gets 403 exactly when that
 * scope is not the one it holds (insufficient_scope, or forbidden where no key may call), never a
 * 401 or a 5xx.
 */
t.test('each single-scope API key against every admin route: 403 exactly where the documented scope says', async (t) => {
  const app = await buildApp(t, { workers: false, env: { RATE_LIMIT_API_KEY: '100000' } });
  const owner = await signupOwner(app);
  const keys = {} as Record<ApiKeyScope, string>;
  for (const scope of API_KEY_SCOPES) {
    const created = await app.request({ method: 'POST', url: '/admin/store/api-keys', payload: { name: scope, scopes: [scope] }, token: owner.accessToken, storeId: owner.store.id });
    t.equal(created.status, 201, `a key with only ${scope}`);
    keys[scope] = created.body.data.secret;
  }
  const document = (await app.request({ url: '/openapi.json' })).body;

  const routes = adminRoutes(app);
  t.ok(routes.length >= 60, `${routes.length} admin routes`);

  for (const route of routes) {
    const operation = document.paths[route.fullPath]?.[route.method.toLowerCase()];
    t.ok(operation && 'x-api-key-scope' in operation, `${route.method} ${route.path} documents its scope`);
    t.equal(operation?.['x-api-key-scope'], contractScope(route.method, route.path), `${route.method} ${route.path}: the documented scope is the contract's`);
  }

  const opened = new Set<ApiKeyScope>();
  for (const scope of API_KEY_SCOPES) {
    for (const route of routes) {
      const documented = document.paths[route.fullPath]?.[route.method.toLowerCase()]?.['x-api-key-scope'] as ApiKeyScope | null;
      const url = urlOf(route);
      const body = bodyFor(route.accepts);
      const response = await app.request({ method: route.method, url, payload: body.payload, headers: { ...body.headers, authorization: `Bearer ${keys[scope]}` } });
      const label = `${scope} key, ${route.method} ${route.path} (documented: ${documented})`;
      t.ok(response.status < 500 && response.status !== 401, `${label}: no 5xx, no 401 (${response.status})`);
      if (documented === scope) {
        opened.add(scope);
        t.not(response.status, 403, `${label}: allowed`);
      } else {
        t.equal(response.status, 403, `${label}: refused`);
        t.equal(response.body.error?.code, documented === null ? 'forbidden' : 'insufficient_scope', `${label}: says why`);
      }
    }
  }
  t.same([...opened].sort(), [...API_KEY_SCOPES].sort(), 'every scope opens at least one route');
});
