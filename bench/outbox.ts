import pg from 'pg';
import { freshBenchDatabase } from './lib/database.js';
import { measure, measurePost, ratio, startBenchServer } from './lib/http.js';

/**
 * Issue 7 target: newsletter subscribe through the outbox (job row in the same transaction, relay
 * on) costs at most 15% of the throughput of the same route enqueueing directly after commit.
 */
export async function run(): Promise<void> {
  console.log('\n# outbox: newsletter subscribe writes, outbox vs direct enqueue (50 connections)');
  const databaseUrl = await freshBenchDatabase('outbox');
  const server = await startBenchServer(databaseUrl, { REDIS_PREFIX: `swbench-outbox-${process.pid}` });
  try {
    const signup = await fetch(`${server.api}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'Bench', lastName: 'Mark', email: 'outbox@example.com', password: 'benchmark-password', storeName: 'Bench', storeSlug: 'bench-outbox' })
    });
    const { data } = (await signup.json()) as { data: { storefrontToken: string } };
    const headers = { 'x-storefront-token': data.storefrontToken };
    const bare = await measure('GET bare hapi route', server.bare);
    const direct = await measurePost('POST subscribe, direct enqueue', `${server.api}/bench/newsletter-direct`, (n) => ({ email: `direct${n}@example.com` }), { headers });
    const outbox = await measurePost('POST /storefront/newsletter/subscribe (outbox)', `${server.api}/api/v1/storefront/newsletter/subscribe`, (n) => ({ email: `outbox${n}@example.com` }), { headers });
    const cost = ((1 - outbox.reqPerSec / direct.reqPerSec) * 100).toFixed(1);
    console.log(`outbox: ${ratio(outbox, bare)} of bare, direct ${ratio(direct, bare)} of bare; outbox costs ${cost}% of direct (target <= 15%)`);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const left = await client.query('select count(*)::int as n from outbox');
    await client.end();
    console.log(`outbox rows left unrelayed after the run: ${left.rows[0].n}`);
  } finally {
    await server.stop();
  }
}
