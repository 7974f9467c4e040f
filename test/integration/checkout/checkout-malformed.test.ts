import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { setupShop } from '../../helpers/checkout.js';

/**
 * Every route of the checkout, order, review and payment groups answers malformed ids, queries and
 * bodies with a 4xx in the contract's error shape, never a 5xx.
 */
t.test('malformed input on every checkout, order, review and payment route: 4xx, never 5xx', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const cart = (await app.request({ method: 'POST', url: '/storefront/carts', payload: {}, storefrontToken: owner.storefrontToken })).body.data.cart.id;
  const uuid = '00000000-0000-4000-8000-000000000000';
  const ids = ['not-a-uuid', uuid, '%00', 'a'.repeat(300), "1' or '1'='1"];
  const bodies: unknown[] = ['{bad json', '[]', '"text"', '{"__proto__": {"x": 1}}', '{"quantity": "lots", "variantId": 5}', '{"items": "x", "email": 12}', 'null'];
  const routes: Array<{ method: string; url: (id: string) => string; auth: 'storefront' | 'admin' | 'none' }> = [
    { method: 'POST', url: () => '/storefront/carts', auth: 'storefront' },
    { method: 'GET', url: (id) => `/storefront/carts/${id}`, auth: 'storefront' },
    { method: 'GET', url: (id) => `/storefront/carts/${id}/shipping-methods?country=${id}`, auth: 'storefront' },
    { method: 'POST', url: (id) => `/storefront/carts/${id}/items`, auth: 'storefront' },
    { method: 'PATCH', url: (id) => `/storefront/carts/${cart}/items/${id}`, auth: 'storefront' },
    { method: 'DELETE', url: (id) => `/storefront/carts/${id}/items/${id}`, auth: 'storefront' },
    { method: 'POST', url: (id) => `/storefront/carts/${id}/discount`, auth: 'storefront' },
    { method: 'DELETE', url: (id) => `/storefront/carts/${id}/discount`, auth: 'storefront' },
    { method: 'POST', url: (id) => `/storefront/carts/${id}/shipping-method`, auth: 'storefront' },
    { method: 'POST', url: (id) => `/storefront/carts/${id}/checkout-session`, auth: 'storefront' },
    { method: 'POST', url: (id) => `/storefront/checkout-sessions/${id}/confirm`, auth: 'storefront' },
    { method: 'GET', url: (id) => `/storefront/products/${id}/reviews?limit=${id}&cursor=${id}`, auth: 'storefront' },
    { method: 'PUT', url: (id) => `/storefront/products/${id}/reviews`, auth: 'storefront' },
    { method: 'GET', url: (id) => `/admin/orders?status=${id}&q=${id}&cursor=${id}`, auth: 'admin' },
    { method: 'GET', url: (id) => `/admin/orders/${id}`, auth: 'admin' },
    { method: 'POST', url: (id) => `/admin/orders/${id}/fulfillments`, auth: 'admin' },
    { method: 'GET', url: (id) => `/admin/reviews?state=${id}&productId=${id}`, auth: 'admin' },
    { method: 'PATCH', url: (id) => `/admin/reviews/${id}/moderation`, auth: 'admin' },
    { method: 'GET', url: () => '/admin/store/payments', auth: 'admin' },
    { method: 'POST', url: () => '/admin/store/payments/onboarding-link', auth: 'admin' },
    { method: 'POST', url: () => '/admin/store/payments/dashboard-link', auth: 'admin' },
    { method: 'POST', url: () => '/admin/store/payments/reset', auth: 'admin' },
    { method: 'GET', url: (id) => `/public/orders/${id}`, auth: 'none' },
    { method: 'POST', url: () => '/internal/webhooks/stripe', auth: 'none' }
  ];
  let calls = 0;
  for (const route of routes) {
    for (const id of ids) {
      const sendsBody = route.method !== 'GET' && route.method !== 'DELETE';
      for (const body of sendsBody ? bodies : [undefined]) {
        const auth = route.auth === 'storefront' ? { storefrontToken: owner.storefrontToken } : route.auth === 'admin' ? admin(owner) : {};
        const response = await app.request({
          method: route.method,
          url: route.url(encodeURIComponent(id)),
          payload: body as string | undefined,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          ...auth
        });
        calls += 1;
        if (response.status >= 500 || response.body?.success !== false && response.status >= 400) {
          t.fail(`${route.method} ${route.url(id)} with ${String(body)} answered ${response.status} ${response.raw.slice(0, 200)}`);
        }
      }
    }
  }
  t.ok(calls > 400, `${calls} malformed requests, none answered 5xx`);
});
