import { spawn } from 'node:child_process';
import { recordGoal } from './lib/goals.js';
import { once } from 'node:events';
import http from 'node:http';
import pg from 'pg';
import type { AddressInfo } from 'node:net';
import readline from 'node:readline';
import { webhookDeliveryJob } from '../src/jobs/webhook-delivery.js';
import { benchApi, benchSql, checkoutStore, type CheckoutStore } from './lib/bench-store.js';
import { cpuPerUnit, cpuSnapshot, type CpuSnapshot } from './lib/cpu-time.js';
import { freshBenchDatabase } from './lib/database.js';
import { measure, startBenchServer, type BenchServer } from './lib/http.js';
import { settle } from './lib/settle.js';
import { printStats, runShoppers } from './lib/shoppers.js';

/**
 * Issue 25 and 38 targets: >= 1,000 deliveries/s from one worker process to a local receiver (20
 * endpoints) at <= 1 ms of worker + PostgreSQL CPU each, and
 * checkouts/s with three subscriptions on order.created within 5% of none (the write path only:
 * no worker delivers meanwhile).
 */
const SHOPPERS = Number(process.env.BENCH_SHOPPERS ?? 50);
const DURATION_MS = Number(process.env.BENCH_DURATION ?? 8) * 1000;
/** Events per endpoint in the 20-endpoint round (the one-endpoint round gets five times as many). */
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 300);
const REDIS_PREFIX = `swbench-webhooks-${process.pid}`;

/** A receiver answering 200 at once, counting what it got. */
async function startReceiver() {
  let received = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  };
}

async function startWorker(databaseUrl: string) {
  const child = spawn(process.execPath, [...(process.env.BENCH_WORKER_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_WORKER_PROF] : []), '--import', 'tsx', 'bench/lib/webhook-worker-child.ts'], {
    // Every endpoint here is one local receiver, so the per-host cap (16 by default) would measure
    // itself, not the worker: lifted unless the caller sets one.
    env: { WEBHOOK_HOST_CONCURRENCY: '1000', ...process.env, DATABASE_URL: databaseUrl, REDIS_PREFIX, ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', NODE_ENV: 'development' },
    stdio: ['ignore', 'pipe', 'inherit']
  });
  const lines = readline.createInterface({ input: child.stdout! });
  await once(lines, 'line');
  return {
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  };
}

/** `count` events of product.created for the store (one delivery each per subscription), written as the services write them. */
async function queueEvents(databaseUrl: string, storeId: string, count: number) {
  await benchSql(
    databaseUrl,
    `select record_webhook_events($1, 'product.created',
       (select jsonb_agg(jsonb_build_object('resourceId', gen_random_uuid(), 'data', jsonb_build_object('id', g, 'title', 'Bench product ' || g))) from generate_series(1, $2::int) g),
       $3, $4, $5::jsonb)`,
    [storeId, count, webhookDeliveryJob.queue, webhookDeliveryJob.name, JSON.stringify(webhookDeliveryJob.options)]
  );
}

async function deliveriesPerSecond(server: BenchServer, databaseUrl: string, store: CheckoutStore, receiverUrl: string, endpoints: number, events: number) {
  const ids: string[] = [];
  for (let i = 0; i < endpoints; i++) {
    const created = await benchApi(server.api, 'POST', '/admin/store/webhooks', { url: `${receiverUrl}/e${i}`, topics: ['product.created'] }, store.adminHeaders);
    ids.push(created.webhook.id);
  }
  await queueEvents(databaseUrl, store.storeId, events);
  const total = endpoints * events;
  // The server's outbox relay moves the jobs into BullMQ; the worker starts on a full queue. Waited
  // for, not assumed: on a loaded machine the relay took longer than a fixed second, and a worker
  // started on a queue still filling measured the relay, idle most of the time.
  await settle(1_000);
  const relayStarted = Date.now();
  for (;;) {
    const [left] = await benchSql<{ n: string }>(databaseUrl, `select count(*) as n from outbox`);
    if (Number(left!.n) === 0 || Date.now() - relayStarted > 60_000) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The bench's own look at the progress: one connection, and a count of the deliveries still open
  // (the sweeper's partial index), not of the finished ones. A new connection and a scan of every
  // delivery row twenty times a second cost this two-core machine some 15% of its CPU beside the
  // worker it measures (backend start-ups and 11-14 ms scans, from PostgreSQL's statement log); ten
  // looks a second (the rate is read to within 100 ms of the last delivery).
  // Its backend's CPU is left out of PostgreSQL's per delivery: the count reads every open delivery.
  const observer = new pg.Client({ connectionString: databaseUrl });
  await observer.connect();
  const observerPid = (await observer.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  const worker = await startWorker(databaseUrl);
  const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const snapshot = () => {
    const taken = cpuSnapshot(worker.pid, database);
    taken.postgresMs.delete(observerPid);
    return taken;
  };
  const cpuBefore = snapshot();
  let cpuAfter: CpuSnapshot = cpuBefore;
  const started = Date.now();
  let done = 0;
  try {
    for (;;) {
      const { rows } = await observer.query<{ open: string }>(
        `select count(*) as open from webhook_deliveries where status in ('pending', 'delivering') and subscription_id = any($1::uuid[])`,
        [ids]
      );
      done = total - Number(rows[0]!.open);
      cpuAfter = snapshot();
      if (done >= total || Date.now() - started > 120_000) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await worker.stop();
    await observer.end();
  }
  const elapsed = Date.now() - started;
  const perSec = (done / elapsed) * 1000;
  console.log(`one worker, ${endpoints} endpoint${endpoints === 1 ? '' : 's'} (in-flight cap ${process.env.WEBHOOK_ENDPOINT_CONCURRENCY ?? 4} each): ${done}/${total} deliveries in ${(elapsed / 1000).toFixed(1)} s = ${perSec.toFixed(0)} deliveries/s`);
  // Per delivery: "server" is the worker process, "load generator" this process (the receiver, and the polling).
  console.log(`  ${cpuPerUnit(cpuBefore, cpuAfter, done, 'delivery')}`);
  const workerAndDb = (cpuAfter.serverMs - cpuBefore.serverMs + [...cpuAfter.postgresMs].reduce((sum, [pid, ms]) => sum + ms - (cpuBefore.postgresMs.get(pid) ?? 0), 0)) / Math.max(1, done);
  console.log(`  worker + PostgreSQL CPU ${workerAndDb.toFixed(2)} ms per delivery: about ${(2000 / workerAndDb).toFixed(0)} deliveries/s on two idle cores`);
  // Deleted, not disabled: a store keeps at most 20 subscriptions, disabled ones included.
  for (const id of ids) await benchApi(server.api, 'DELETE', `/admin/store/webhooks/${id}`, undefined, store.adminHeaders);
  return { perSec, cpu: workerAndDb };
}

/** One timed round of checkouts: checkouts/s, and server + PostgreSQL CPU per checkout (steadier on a shared machine). */
async function checkoutRound(server: BenchServer, store: CheckoutStore, label: string) {
  const before = cpuSnapshot(server.pid, server.database);
  const stats = await runShoppers({ api: server.api, storefrontToken: store.storefrontToken, shippingMethodId: store.shippingMethodId, variantIds: store.variantIds, shoppers: SHOPPERS, durationMs: DURATION_MS });
  const after = cpuSnapshot(server.pid, server.database);
  const perSec = printStats(label, stats);
  console.log(`  ${cpuPerUnit(before, after, stats.completed, 'checkout')}`);
  const cpu = (after.serverMs - before.serverMs + [...after.postgresMs].reduce((sum, [pid, ms]) => sum + ms - (before.postgresMs.get(pid) ?? 0), 0)) / Math.max(1, stats.completed);
  return { perSec, cpu };
}

export async function run(): Promise<void> {
  console.log(`\n# webhooks: deliveries/s from one worker to a local receiver; checkouts/s with 3 order.created subscriptions vs none`);
  const databaseUrl = await freshBenchDatabase('webhooks');
  const receiver = await startReceiver();
  const server = await startBenchServer(databaseUrl, { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', REDIS_PREFIX });
  try {
    const store = await checkoutStore(server.api, databaseUrl, 'bench-webhooks');
    // The machine is shared: the bare route of this run says how much of it the bench got.
    const bare = await measure('GET bare hapi route', server.bare, { duration: 4 });
    const many = await deliveriesPerSecond(server, databaseUrl, store, receiver.url, 20, EVENTS);
    if (process.env.BENCH_WEBHOOKS_ONE_ENDPOINT !== '0') await deliveriesPerSecond(server, databaseUrl, store, receiver.url, 1, EVENTS * 5);
    // Issue 38: >= 1,000 deliveries/s on two cores, worker + PostgreSQL CPU <= 1 ms per delivery (on a busy machine the CPU figure is the one to read).
    console.log(`  target >= 1,000 deliveries/s from one worker, 20 endpoints (${many.perSec >= 1000 ? 'met' : 'MISSED'}); worker + PostgreSQL CPU <= 1 ms per delivery (${many.cpu <= 1 ? 'met' : 'MISSED'}: ${many.cpu.toFixed(2)} ms)`);
    recordGoal({
      row: `webhook deliveries, one worker, 20 endpoints (${process.env.REDIS_URL ? 'Redis' : 'PostgreSQL'} queue)`,
      figure: `${many.perSec.toFixed(0)}/s, worker + PostgreSQL CPU ${many.cpu.toFixed(2)} ms per delivery`,
      goal: '>= 1,000/s, CPU <= 1 ms',
      met: many.perSec >= 1000 && many.cpu <= 1,
      bare: bare.reqPerSec
    });
    if (process.env.BENCH_WEBHOOKS_DELIVERIES_ONLY === '1') return;

    // The write path: three subscriptions to order.created, or none (disabled). Alternated, so drift on a shared machine hits both.
    const hooks: string[] = [];
    for (let i = 0; i < 3; i++) hooks.push((await benchApi(server.api, 'POST', '/admin/store/webhooks', { url: `${receiver.url}/orders${i}`, topics: ['order.created'] }, store.adminHeaders)).webhook.id);
    const setHooks = async (enabled: boolean) => {
      for (const id of hooks) await benchApi(server.api, 'PATCH', `/admin/store/webhooks/${id}`, { enabled }, store.adminHeaders);
    };
    await setHooks(false);
    await runShoppers({ api: server.api, storefrontToken: store.storefrontToken, shippingMethodId: store.shippingMethodId, variantIds: store.variantIds, shoppers: SHOPPERS, durationMs: 2_000 });
    await benchSql(databaseUrl, 'ANALYZE');
    const none: Array<{ perSec: number; cpu: number }> = [];
    const three: Array<{ perSec: number; cpu: number }> = [];
    for (let round = 0; round < 2; round++) {
      await setHooks(false);
      none.push(await checkoutRound(server, store, `no subscription (round ${round + 1})`));
      await setHooks(true);
      three.push(await checkoutRound(server, store, `3 subscriptions on order.created (round ${round + 1})`));
    }
    const mean = (values: Array<{ perSec: number; cpu: number }>, key: 'perSec' | 'cpu') => values.reduce((a, b) => a + b[key], 0) / values.length;
    const [events] = await benchSql<{ n: string }>(databaseUrl, `select count(*) as n from webhook_deliveries d join webhook_events e on e.id = d.event_id where e.topic = 'order.created'`);
    const ratio = mean(three, 'perSec') / mean(none, 'perSec');
    const cpuRatio = mean(three, 'cpu') / mean(none, 'cpu');
    console.log(`checkouts/s: none ${mean(none, 'perSec').toFixed(0)}, three subscriptions ${mean(three, 'perSec').toFixed(0)} (${((ratio - 1) * 100).toFixed(1)}%; ${events!.n} order.created deliveries written); target within 5% (${ratio >= 0.95 ? 'met' : 'MISSED'})`);
    console.log(`server + PostgreSQL CPU per checkout: none ${mean(none, 'cpu').toFixed(2)} ms, three subscriptions ${mean(three, 'cpu').toFixed(2)} ms (${((cpuRatio - 1) * 100).toFixed(1)}%)`);
  } finally {
    await server.stop();
    await receiver.close();
  }
}
