import t from 'tap';
import { buildApp } from '../../helpers/app.js';

const FAKE_ID = '00000000-0000-4000-8000-000000000000';

/**
 * Issue #31 (9): a 401 from an admin route carried `WWW-Authenticate: Bearer, Bearer` (the API key
 * strategy and the JWT strategy each added their challenge). Every route that needs credentials,
 * called without any, answers 401 with each challenge once: `Bearer` on admin and user routes,
 * `Storefront` on storefront routes. Generated from the route table, so a new route is covered.
 */
t.test('a request without credentials gets 401 with each challenge once', async (t) => {
  const app = await buildApp(t, { workers: false });
  const routes = app.server
    .table()
    .filter((route) => route.path.startsWith('/api/v1/'))
    .map((route) => ({ method: route.method.toUpperCase(), path: route.path, strategies: ((route.settings.auth as { strategies?: string[] } | undefined)?.strategies ?? []) as string[] }))
    .filter((route) => route.strategies.length > 0);
  t.ok(routes.some((route) => route.strategies.length > 1), 'some routes try more than one strategy (admin: API key, then JWT)');
  for (const route of routes) {
    const url = route.path.replace(/\{[^}]+\}/g, FAKE_ID);
    const response = await app.request({ method: route.method, url });
    t.equal(response.status, 401, `${route.method} ${route.path}`);
    const expected = route.strategies.includes('storefront') ? 'Storefront' : 'Bearer';
    t.equal(response.headers['www-authenticate'], expected, `${route.method} ${route.path}: ${expected}, once`);
  }
});
