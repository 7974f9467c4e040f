import pg from 'pg';
import { freshBenchDatabase } from './lib/database.js';
import { measure, measurePost, ratio, startBenchServer, type Measurement } from './lib/http.js';

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
    const { data } = (await signup.json()) as { data: { storefrontToken: string; accessToken: string; store: { id: string } } };
    const headers = { 'x-storefront-token': data.storefrontToken };
    // Both sides subscribe at once (new stores confirm by email first).
    await fetch(`${server.api}/api/v1/admin/store`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${data.accessToken}`, 'x-store-id': data.store.id },
      body: JSON.stringify({ newsletterDoubleOptIn: false })
    });
    const bare = await measure('GET bare hapi route', server.bare);
    // Interleaved (direct, outbox, direct, outbox) so that a growing table or a noisy neighbour
    // weighs on both alike; each side is the mean of its two runs.
    const runs = { direct: [] as Measurement[], outbox: [] as Measurement[] };
    for (const round of [1, 2]) {
      runs.direct.push(await measurePost(`POST subscribe, direct enqueue (run ${round})`, `${server.api}/bench/newsletter-direct`, (n) => ({ email: `direct${round}-${n}@example.com` }), { headers }));
      runs.outbox.push(await measurePost(`POST /storefront/newsletter/subscribe (run ${round})`, `${server.api}/api/v1/storefront/newsletter/subscribe`, (n) => ({ email: `outbox${round}-${n}@example.com` }), { headers }));
    }
    const direct = mean('direct', runs.direct);
    const outbox = mean('outbox', runs.outbox);
    const cost = ((1 - outbox.reqPerSec / direct.reqPerSec) * 100).toFixed(1);
    console.log(`outbox ${outbox.reqPerSec} req/s (${ratio(outbox, bare)} of bare), direct ${direct.reqPerSec} req/s (${ratio(direct, bare)} of bare); the outbox costs ${cost}% of direct (target <= 15%)`);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const left = await client.query('select count(*)::int as n from outbox');
    await client.end();
    console.log(`outbox rows left unrelayed after the run: ${left.rows[0].n}`);
  } finally {
    await server.stop();
  }
}

function mean(name: string, runs: Measurement[]): Measurement {
  const avg = (pick: (m: Measurement) => number) => Math.round(runs.reduce((sum, m) => sum + pick(m), 0) / runs.length);
  return { name, reqPerSec: avg((m) => m.reqPerSec), p50: avg((m) => m.p50), p99: avg((m) => m.p99), non2xx: avg((m) => m.non2xx) };
}
