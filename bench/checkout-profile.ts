import pg from 'pg';
import { createServer } from '../src/api/server.js';
import { loadConfig } from '../src/config.js';
import { closeContext, createContext, openContext } from '../src/context.js';
import { MODULES } from '../src/installed-modules.js';
import { cpuSnapshot } from './lib/cpu-time.js';
import { benchSql as sql, seedBenchVariants } from './lib/bench-store.js';
import { freshBenchDatabase } from './lib/database.js';
import { STEPS, type Step } from './lib/shoppers.js';

const ADDRESS = { firstName: 'Bench', lastName: 'Shopper', line1: '1 Bench St', city: 'Loadville', postalCode: '10001', country: 'US' };

/**
 * Where a checkout's PostgreSQL time goes, in-process and without HTTP: the bench's store (101
 * products, one variant each), then
 * 1. PostgreSQL CPU per checkout (every backend of the database, the outbox relay's included) over
 *    CHECKOUT_PROFILE_RUNS sequential checkouts (a few shoppers at once, CHECKOUT_PROFILE_SHOPPERS);
 *    CPU time, not wall time, so it moves less with the machine's load than the bench's rate;
 * 2. with CHECKOUT_PROFILE_EXPLAIN=1, one more checkout under auto_explain (ANALYZE, BUFFERS,
 *    triggers, nested statements, as NOTICEs on the bench database only): each statement's
 *    execution time, buffers, and the triggers it fired with their time and calls.
 * `npx tsx bench/index.ts checkout-profile`.
 */
/**
 * Cumulative counters of the database: blocks, rows and transactions (pg_stat_database), rows
 * written per table, and time in each function (trigger functions included: track_functions).
 * PostgreSQL 15 backends publish their counters when idle for a second or more, so this waits.
 */
async function databaseStats(databaseUrl: string): Promise<Map<string, number>> {
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const stats = new Map<string, number>();
  const database = await sql<Record<string, string>>(
    databaseUrl,
    `select xact_commit, xact_rollback, blks_hit, blks_read, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted from pg_stat_database where datname = current_database()`
  );
  for (const [key, value] of Object.entries(database[0]!)) stats.set(`db ${key}`, Number(value));
  const tables = await sql<{ name: string; ins: string; upd: string; hot: string; del: string }>(
    databaseUrl,
    `select schemaname || '.' || relname as name, n_tup_ins as ins, n_tup_upd as upd, n_tup_hot_upd as hot, n_tup_del as del from pg_stat_all_tables where schemaname not in ('pg_catalog', 'information_schema', 'pg_toast')`
  );
  for (const table of tables) {
    stats.set(`${table.name} ins`, Number(table.ins));
    stats.set(`${table.name} upd`, Number(table.upd));
    stats.set(`${table.name} upd not hot`, Number(table.upd) - Number(table.hot));
    stats.set(`${table.name} del`, Number(table.del));
  }
  const functions = await sql<{ name: string; calls: string; self: string }>(databaseUrl, 'select schemaname || \'.\' || funcname as name, calls, self_time as self from pg_stat_user_functions');
  for (const fn of functions) {
    stats.set(`fn ${fn.name} calls`, Number(fn.calls));
    stats.set(`fn ${fn.name} self ms`, Number(fn.self));
  }
  return stats;
}

export async function run(): Promise<void> {
  const runs = Number(process.env.CHECKOUT_PROFILE_RUNS ?? 300);
  const shoppers = Number(process.env.CHECKOUT_PROFILE_SHOPPERS ?? 4);
  console.log(`\n# checkout-profile: ${runs} checkouts, ${shoppers} at a time, in-process (no HTTP)`);
  const databaseUrl = await freshBenchDatabase('checkout_profile');
  const databaseName = databaseUrl.slice(databaseUrl.lastIndexOf('/') + 1);
  const explain = Boolean(process.env.CHECKOUT_PROFILE_EXPLAIN);
  await sql(databaseUrl, `ALTER DATABASE ${databaseName} SET track_functions = 'pl'`);
  if (explain) {
    // Every session of this database explains its statements (the CPU figure then includes that).
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    for (const setting of [
      `session_preload_libraries = 'auto_explain'`,
      'auto_explain.log_min_duration = 0',
      'auto_explain.log_analyze = on',
      'auto_explain.log_buffers = on',
      'auto_explain.log_triggers = on',
      'auto_explain.log_nested_statements = on',
      `auto_explain.log_level = 'notice'`
    ]) {
      await admin.query(`ALTER DATABASE ${databaseName} SET ${setting}`);
    }
    await admin.end();
  }
  const config = loadConfig({ ...process.env, RATE_LIMIT_STOREFRONT_PER_TOKEN: '1000000000', RATE_LIMIT_STOREFRONT_PER_CLIENT: '1000000000', NODE_ENV: 'development', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl });
  const ctx = createContext(config, { modules: MODULES, dbPoolMax: shoppers + 4 });
  await openContext(ctx);
  const server = await createServer(ctx, { port: 0 });
  await server.initialize();
  const notices: string[] = [];
  let capture = false;
  const connect = pg.Client.prototype.connect;
  pg.Client.prototype.connect = function (this: pg.Client, ...args: unknown[]) {
    this.on('notice', (notice: { message?: string }) => {
      if (capture && notice.message) notices.push(notice.message);
    });
    return (connect as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof connect;
  try {
    const call = async (method: string, url: string, payload?: object, headers: Record<string, string> = {}) => {
      const response = await server.inject({ method, url: `/api/v1${url}`, payload, headers });
      if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.payload}`);
      return JSON.parse(response.payload).data;
    };
    const signup = await call('POST', '/auth/signup', { firstName: 'A', lastName: 'B', email: 'profile@bench.example', password: 'benchmark-password', storeName: 'S', storeSlug: 'bench-profile' });
    const admin = { authorization: `Bearer ${signup.accessToken}`, 'x-store-id': signup.store.id };
    const settings = await call('PATCH', '/admin/store', { manualPaymentsEnabled: true, shippingMethods: [{ name: 'Standard', price: 500 }] }, admin);
    const shippingMethodId = (settings.store ?? settings).shippingMethods[0].id as string;
    const storeId = signup.store.id as string;
    await seedBenchVariants(databaseUrl, storeId, 101);
    const variants = (await sql<{ id: string }>(databaseUrl, 'select id from product_variants where store_id = $1', [storeId])).map((v) => v.id);
    const shopper = { 'x-storefront-token': signup.storefrontToken as string };
    let n = 0;
    const checkout = async (trace?: (step: Step) => void) => {
      const variantId = variants[n++ % variants.length]!;
      const email = `shopper${n % shoppers}@bench.example`; // as the bench: one customer per shopper, found again at each checkout
      trace?.('cart');
      const cart = await call('POST', '/storefront/carts', { email }, shopper);
      const cartId = cart.cart.id as string;
      trace?.('item');
      await call('POST', `/storefront/carts/${cartId}/items`, { variantId, quantity: 1 }, shopper);
      trace?.('shipping');
      await call('POST', `/storefront/carts/${cartId}/shipping-method`, { shippingMethodId }, shopper);
      trace?.('session');
      const session = await call('POST', `/storefront/carts/${cartId}/checkout-session`, { email, shippingAddress: ADDRESS }, shopper);
      trace?.('confirm');
      await call('POST', `/storefront/checkout-sessions/${session.checkoutSession.id}/confirm`, {}, shopper);
    };
    const loop = async (count: number) => {
      let left = count;
      await Promise.all(Array.from({ length: shoppers }, async () => {
        while (left-- > 0) await checkout();
      }));
    };
    await loop(Math.min(200, runs)); // warm-up: JIT, pools, prepared statements, a few hundred customers
    await sql(databaseUrl, 'ANALYZE');
    await ctx.outbox.drain();
    const statsBefore = await databaseStats(databaseUrl);
    const before = cpuSnapshot(process.pid, databaseName);
    const started = performance.now();
    await loop(runs);
    await ctx.outbox.drain();
    const after = cpuSnapshot(process.pid, databaseName);
    const elapsed = performance.now() - started;
    const statsAfter = await databaseStats(databaseUrl);
    for (const [key, value] of statsAfter) {
      const delta = value - (statsBefore.get(key) ?? 0);
      if (Math.abs(delta) >= runs / 10) console.log(`  ${key}: ${(delta / runs).toFixed(key.includes('ms') ? 3 : 2)} per checkout`);
    }
    let postgres = 0;
    for (const [pid, ms] of after.postgresMs) postgres += ms - (before.postgresMs.get(pid) ?? 0);
    console.log(`PostgreSQL CPU ${(postgres / runs).toFixed(2)} ms per checkout; this process ${((after.serverMs - before.serverMs) / runs).toFixed(2)} ms; ${((runs / elapsed) * 1000).toFixed(0)} checkouts/s in-process`);

    // A/B inside one run: CHECKOUT_PROFILE_ON and CHECKOUT_PROFILE_OFF are SQL that switch a
    // variant of the schema on and off (a trigger dropped, a foreign key dropped …); rounds of
    // checkouts alternate between the two on this one database, so both see the same load.
    const on = process.env.CHECKOUT_PROFILE_ON;
    const off = process.env.CHECKOUT_PROFILE_OFF;
    if (on && off) {
      const rounds = Number(process.env.CHECKOUT_PROFILE_ROUNDS ?? 4);
      const per = Math.max(20, Math.round(runs / rounds));
      const figures: Record<'off' | 'on', number[]> = { off: [], on: [] };
      for (let round = 0; round < rounds; round++) {
        for (const variant of ['off', 'on'] as const) {
          await sql(databaseUrl, variant === 'on' ? on : off);
          await loop(5);
          await ctx.outbox.drain();
          const a = cpuSnapshot(process.pid, databaseName);
          await loop(per);
          await ctx.outbox.drain();
          const b = cpuSnapshot(process.pid, databaseName);
          let ms = 0;
          for (const [pid, value] of b.postgresMs) ms += value - (a.postgresMs.get(pid) ?? 0);
          figures[variant].push(ms / per);
        }
      }
      await sql(databaseUrl, off);
      const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
      const show = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
      console.log(`A/B PostgreSQL CPU per checkout, ${rounds} rounds of ${per}: off ${show(figures.off)} (median ${median(figures.off).toFixed(2)}), on ${show(figures.on)} (median ${median(figures.on).toFixed(2)})`);
    }

    if (explain) {
      await checkout();
      await checkout();
      let current: Step = 'cart';
      const byStep: Record<Step, string[]> = { cart: [], item: [], shipping: [], session: [], confirm: [] };
      capture = true;
      await checkout((step) => {
        notices.push(`@@step ${step}`);
        current = step;
      });
      capture = false;
      void current;
      let step: Step = 'cart';
      for (const notice of notices) {
        const marker = /^@@step (\w+)/.exec(notice);
        if (marker) step = marker[1] as Step;
        else byStep[step].push(notice);
      }
      for (const name of STEPS) {
        console.log(`\n## ${name}`);
        for (const plan of byStep[name]) {
          const lines = plan.split('\n');
          const query = lines.find((line) => line.startsWith('Query Text:')) ?? lines[0]!;
          console.log(`- ${query.replace(/\s+/g, ' ').slice(0, 200)}`);
          for (const line of lines) if (/Execution Time|Trigger |Buffers: shared|Planning Time/.test(line)) console.log(`    ${line.trim()}`);
        }
      }
      if (process.env.CHECKOUT_PROFILE_FULL) console.log(notices.join('\n\n'));
    }
  } finally {
    pg.Client.prototype.connect = connect;
    await server.stop();
    await closeContext(ctx);
  }
}
