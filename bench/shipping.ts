import { freshBenchDatabase } from './lib/database.js';
import { measure, startBenchServer } from './lib/http.js';

/**
 * Issue #34: `GET /storefront/carts/{id}/shipping-methods` p99 < 20 ms, on a store with a dozen
 * zones (countries, regions, postcode patterns, weight and subtotal bands, pickup) and a cart of
 * three lines with weights, with 10 connections.
 */
export async function run(): Promise<void> {
  console.log('\n# shipping: the rates that apply to a cart');
  const databaseUrl = await freshBenchDatabase('shipping');
  const server = await startBenchServer(databaseUrl, { REDIS_PREFIX: `swbench-shipping-${process.pid}` });
  try {
    const api = `${server.api}/api/v1`;
    const call = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
      const response = await fetch(`${api}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await response.json()) as { data: any };
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    const signup = await call('POST', '/auth/signup', { firstName: 'Bench', lastName: 'Mark', email: 'shipping@example.com', password: 'benchmark-password', storeName: 'Ship', storeSlug: 'bench-ship' }, {});
    const admin = { authorization: `Bearer ${signup.accessToken}`, 'x-store-id': signup.store.id };
    const shopper = { 'x-storefront-token': signup.storefrontToken as string };
    const states = ['CA', 'NY', 'TX', 'WA', 'FL', 'IL', 'OR', 'NV', 'AZ', 'CO'];
    for (const [i, state] of states.entries()) {
      await call('POST', '/admin/shipping-zones', {
        name: `US-${state}`,
        countries: ['US'],
        regions: [state],
        postcodes: [`${i}*`, `${i}0000..${i}4999`],
        rates: [
          { name: 'Ground', type: 'weight', bands: [{ upTo: 500, price: 400 }, { upTo: 2000, price: 700 }, { upTo: 10000, price: 1200 }, { upTo: null, price: 2500 }], freeOver: 5000 },
          { name: 'Saver', type: 'subtotal', bands: [{ upTo: 2000, price: 600 }, { upTo: null, price: 300 }] },
          { name: 'Express', type: 'flat', price: 2500, estimate: { minDays: 1, maxDays: 2 } }
        ]
      }, admin);
    }
    await call('POST', '/admin/shipping-zones', { name: 'World', countries: [], rates: [{ name: 'International', type: 'weight', bands: [{ upTo: 1000, price: 1500 }, { upTo: null, price: 4000 }] }, { name: 'Pickup', type: 'pickup' }] }, admin);
    const items = [];
    for (const [i, grams] of [250, 1200, 3000].entries()) {
      const { product } = await call('POST', '/admin/products', { title: `Parcel ${i}`, status: 'active', variants: [{ sku: `P${i}`, price: 1000 + i * 500, inventoryQuantity: 1000, weightGrams: grams }] }, admin);
      items.push({ variantId: product.variants[0].id, quantity: i + 1 });
    }
    const { cart } = await call('POST', '/storefront/carts', { items }, shopper);
    await call('PUT', `/storefront/carts/${cart.id}/shipping-address`, { country: 'US', region: 'CA', postalCode: '00123' }, shopper);
    const methods = await call('GET', `/storefront/carts/${cart.id}/shipping-methods`, undefined, shopper);
    console.log(`cart of ${items.length} lines: ${methods.shippingMethods.length} methods apply (${methods.shippingMethods.map((m: { name: string; price: number }) => `${m.name} ${m.price}`).join(', ')})`);
    const result = await measure('GET shipping-methods, 10 connections', `${api}/storefront/carts/${cart.id}/shipping-methods`, { headers: shopper, connections: 10, server });
    console.log(`shipping-methods p99 ${result.p99} ms (target < 20 ms)`);
  } finally {
    await server.stop();
  }
}
