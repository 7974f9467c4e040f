import { freshBenchDatabase } from './lib/database.js';
import { measure, ratio, startBenchServer } from './lib/http.js';

/** Issue 2 targets: storefront store read >= 50% of the bare route's req/s, p99 < 20 ms at 50 connections. */
export async function run(): Promise<void> {
  console.log('\n# foundation: health and storefront store (50 connections)');
  const databaseUrl = await freshBenchDatabase('foundation');
  const server = await startBenchServer(databaseUrl);
  try {
    const signup = await fetch(`${server.api}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'Bench', lastName: 'Mark', email: 'bench@example.com', password: 'benchmark-password', storeName: 'Bench', storeSlug: 'bench-store' })
    });
    const { data } = (await signup.json()) as { data: { storefrontToken: string } };
    const bare = await measure('GET bare hapi route', server.bare);
    const health = await measure('GET /health', `${server.api}/api/v1/health`);
    const store = await measure('GET /storefront/store (token auth)', `${server.api}/api/v1/storefront/store`, {
      headers: { 'x-storefront-token': data.storefrontToken }
    });
    console.log(`storefront store: ${ratio(store, bare)} of bare (target >= 50%), p99 ${store.p99} ms (target < 20 ms)`);
    console.log(`health: ${ratio(health, bare)} of bare`);
  } finally {
    await server.stop();
  }
}
