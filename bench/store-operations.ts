import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { closeContext, createContext, openContext, type AppContext } from '../src/context.js';
import { MODULES } from '../src/installed-modules.js';
import { recheckDueDomains } from '../src/services/domains/recheck.js';
import { runBackfill } from '../src/services/external-system/backfill.js';
import { connectLink, requestSync } from '../src/services/external-system/links.js';
import { DnsServer } from '../test/helpers/dns-server.js';
import { ExternalSystemServer, makeCustomers, makeProducts } from '../test/helpers/external-system-server.js';
import { freshBenchDatabase } from './lib/database.js';
import { measure, startBenchServer } from './lib/http.js';

const ORDERS = 100_000;
const CUSTOMERS = 100_000;
const BACKFILL_EACH = 50_000;
const DOMAINS = 1_000;

async function sql(databaseUrl: string, statements: string[], params: unknown[][] = []) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const [i, statement] of statements.entries()) await client.query(statement, params[i] ?? []);
  } finally {
    await client.end();
  }
}

/** Issue 10 targets: dashboard p99 < 50 ms on 100k orders + 100k customers; backfill >= 5,000 rows/s; DNS re-checks/s. */
export async function run(): Promise<void> {
  console.log('\n# store operations: dashboard, external-system backfill, domain re-checks');
  const databaseUrl = await freshBenchDatabase('ops');
  await dashboard(databaseUrl);
  const ctx = createContext(loadConfig({ ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', REDIS_PREFIX: `swbench-ops-${process.pid}`, ALLOW_PRIVATE_EXTERNAL_HOSTS: 'true' }), { modules: MODULES, dbPoolMax: 20 });
  await openContext(ctx);
  try {
    await backfill(ctx);
    await domainRechecks(ctx, databaseUrl);
  } finally {
    await closeContext(ctx);
  }
}

async function dashboard(databaseUrl: string) {
  const server = await startBenchServer(databaseUrl, { REDIS_PREFIX: `swbench-ops-http-${process.pid}` });
  try {
    const signup = await fetch(`${server.api}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'Bench', lastName: 'Mark', email: 'ops@example.com', password: 'benchmark-password', storeName: 'Ops', storeSlug: 'bench-ops' })
    });
    const { data } = (await signup.json()) as { data: { accessToken: string; store: { id: string } } };
    const storeId = data.store.id;
    // Seeded with plain SQL straight into the checkout module's tables: the bench measures reads.
    await sql(
      databaseUrl,
      [
        `insert into customers (store_id, email, first_name, email_marketing)
           select $1, 'c' || g || '@bench.example', 'C' || g, case when g % 3 = 0 then 'subscribed' else 'not_subscribed' end
             from generate_series(1, ${CUSTOMERS}) g`,
        `insert into orders (store_id, number, email, payment_provider, payment_status, currency, subtotal, total, shipping_address, tracking_token, created_at)
           select $1, 1000 + g, 'c' || g || '@bench.example', 'manual', 'paid', 'USD', 1000 + g % 5000, 1000 + g % 5000,
                  '{"country":"US"}', 'trk_' || g, now() - (g % 90) * interval '1 day'
             from generate_series(1, ${ORDERS}) g`,
        // The orders module counts by its daily rollup, which each order adds to as it is created.
        `insert into store_daily_revenue (store_id, day, shard, revenue, orders)
           select $1, (created_at at time zone 'UTC')::date, 0, sum(total), count(*) from orders where store_id = $1 group by 2`,
        'vacuum analyze'
      ],
      [[storeId], [storeId], [storeId], []]
    );
    const headers = { authorization: `Bearer ${data.accessToken}`, 'x-store-id': storeId };
    const check = await fetch(`${server.api}/api/v1/admin/store`, { headers });
    const body = (await check.json()) as { data: { stats: { ordersCount: number; customersCount: number } } };
    console.log(`seeded: ${body.data.stats.ordersCount} orders, ${body.data.stats.customersCount} customers`);
    await measure('GET bare hapi route', server.bare, { connections: 10 });
    const single = await measure('GET /admin/store (dashboard), 1 connection', `${server.api}/api/v1/admin/store`, { headers, connections: 1 });
    const result = await measure('GET /admin/store (dashboard), 10 connections', `${server.api}/api/v1/admin/store`, { headers, connections: 10 });
    const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
    console.log(`dashboard p99 ${single.p99} ms alone, ${result.p99} ms at 10 connections (target < 50 ms; machine load average ${load})`);
  } finally {
    await server.stop();
  }
}

async function backfill(ctx: AppContext) {
  const ext = await new ExternalSystemServer().start();
  ext.products = makeProducts(BACKFILL_EACH);
  ext.customers = makeCustomers(BACKFILL_EACH);
  ext.pageSize = 1000;
  try {
    const owner = await ctx.db('memberships').where({ role: 'owner' }).first('storeId', 'userId');
    const tenant = { storeId: owner.storeId, userId: owner.userId, role: 'owner' as const };
    const { job } = await connectLink(ctx, tenant, { baseUrl: ext.url, apiKey: ext.apiKey });
    // The job is run here, in this process, so the time is the backfill's own (no queue wait).
    let started = Date.now();
    const first = (await runBackfill(ctx, job.id)) as any;
    let seconds = (Date.now() - started) / 1000;
    const rows = first.products.seen + first.customers.seen;
    console.log(
      `backfill ${rows} rows (${first.products.changed} products, ${first.customers.changed} customers changed) in ${seconds.toFixed(1)} s: ` +
        `${Math.round(rows / seconds)} rows/s (target >= 5,000)`
    );
    await ctx.db('jobs').where({ id: job.id }).update({ status: 'completed' });
    const again = await requestSync(ctx, tenant.storeId, tenant.userId, 'bench');
    started = Date.now();
    const repeat = (await runBackfill(ctx, again.job.id)) as any;
    seconds = (Date.now() - started) / 1000;
    console.log(
      `repeat backfill: ${repeat.products.changed + repeat.customers.changed} rows changed of ${repeat.products.seen + repeat.customers.seen} (target 0), ` +
        `${Math.round((repeat.products.seen + repeat.customers.seen) / seconds)} rows/s`
    );
  } finally {
    await ext.stop();
  }
}

async function domainRechecks(ctx: AppContext, databaseUrl: string) {
  const dns = await new DnsServer().start();
  try {
    await sql(databaseUrl, [
      `insert into stores (name, slug) select 'Domain store ' || g, 'domain-store-' || g from generate_series(1, ${DOMAINS}) g`,
      `insert into store_domains (store_id, hostname, verification_token, next_check_at)
         select id, replace(slug, 'domain-store-', 'shop') || '.bench.example', 'token-' || slug, now() - interval '1 minute'
           from stores where slug like 'domain-store-%'`,
      'analyze store_domains'
    ]);
    const rows = await ctx.db('storeDomains').select('hostname', 'verificationToken');
    for (const [i, row] of rows.entries()) {
      if (i % 2) continue;
      dns.zone.set(row.hostname, { CNAME: ctx.config.domainTarget });
      dns.zone.set(`_shopwright-verify.${row.hostname}`, { TXT: [`shopwright-verification=${row.verificationToken}`] });
    }
    const checker = { ...ctx, config: { ...ctx.config, dnsServers: [dns.address] } };
    const started = Date.now();
    const result = await recheckDueDomains(checker, { batchSize: 250, concurrency: 50, maxBatches: 10 });
    const seconds = (Date.now() - started) / 1000;
    console.log(`domain re-checks: ${result.checked} pending domains (${result.verified} verified) in ${seconds.toFixed(2)} s: ${Math.round(result.checked / seconds)} checks/s (2 DNS queries each)`);
  } finally {
    await dns.stop();
  }
}
