import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { loadConfig } from '../src/config.js';
import { closeContext, createContext, openContext, type AppContext } from '../src/context.js';
import { MODULES } from '../src/installed-modules.js';
import { createCampaign } from '../src/services/marketing/campaigns.js';
import { freshBenchDatabase } from './lib/database.js';

/**
 * Issue 11 targets: a 100,000-recipient newsletter at >= 1,500 messages/s end to end with two
 * worker processes, recipient snapshot < 2 s, and the workers' peak RSS the same at 10,000 as at
 * 100,000 recipients. Mail goes to a local SMTP sink that accepts and discards.
 */
const WORKER_NODE_FLAGS = ['--max-old-space-size=192'];
const WORKERS = 2;

export async function run(): Promise<void> {
  console.log('\n# marketing: newsletter through two campaign worker processes into an SMTP sink');
  const sink = await startSink();
  const databaseUrl = await freshBenchDatabase('marketing');
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: 'swbench-marketing',
    SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    MARKETING_SEND_RATE_CAP: '1000000',
    LOG_LEVEL: 'silent'
  };
  const ctx = createContext(loadConfig(env), { modules: MODULES });
  await openContext(ctx);
  try {
    for (const recipients of (process.env.BENCH_MARKETING_SIZES ?? '10000,100000').split(',').map(Number)) {
      const storeId = await seedStore(ctx, recipients);
      const workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(env)));
      const before = sink.count;
      const started = Date.now();
      const campaign = await createCampaign(
        ctx,
        storeId,
        'newsletter',
        { subject: 'News for {{ customer.firstName }}', html: '<p>Hello {{ customer.firstName }}, <a href="https://example.com/sale">our sale</a> is on.</p>', text: 'Hello {{ customer.firstName }}, our sale is on: https://example.com/sale' },
        null
      );
      const row = await waitUntilSent(ctx, campaign.id);
      const ms = Date.now() - started;
      const peaks = await Promise.all(workers.map(stopWorker));
      const snapshotMs = new Date(row.snapshotAt).getTime() - new Date(row.startedAt).getTime();
      const queuedMs = new Date(row.startedAt).getTime() - started;
      const sendMs = new Date(row.completedAt).getTime() - new Date(row.snapshotAt).getTime();
      console.log(
        `newsletter to ${recipients.toLocaleString('en-US')}: ${Math.round(recipients / (ms / 1000)).toLocaleString('en-US')} messages/s end to end ` +
          `(target >= 1,500), ${(ms / 1000).toFixed(1)} s (${queuedMs} ms before the start job ran); snapshot ${snapshotMs} ms (target < 2,000); sending ${Math.round(recipients / (sendMs / 1000)).toLocaleString('en-US')} messages/s; ` +
          `worker peak RSS ${peaks.map((p) => `${p.toFixed(0)} MB`).join(' / ')}; sink received ${sink.count - before}, campaign sent ${row.sent}`
      );
    }
  } finally {
    await closeContext(ctx);
    sink.server.close();
  }
}

async function seedStore(ctx: AppContext, recipients: number): Promise<string> {
  const [store] = await ctx.db('stores').insert({ name: `Bench ${recipients}`, slug: `bench-marketing-${recipients}`, marketingSendRate: 1_000_000 }).returning('id');
  await ctx.db.raw(
    `insert into customers (store_id, email, first_name, last_name, email_marketing)
     select ?, 'm' || g || '@example.com', 'First' || g, 'Last' || g, case when g % 10 = 0 then 'unsubscribed' else 'subscribed' end
       from generate_series(1, ?) g`,
    [store.id, Math.round(recipients / 0.9)]
  );
  await ctx.db.raw('analyze customers');
  return store.id;
}

async function waitUntilSent(ctx: AppContext, campaignId: string) {
  for (;;) {
    const row = await ctx.db('campaigns').where({ id: campaignId }).first();
    if (row.status !== 'sending' && row.status !== 'scheduled') {
      const sent = await ctx.db('campaignRecipients').where({ campaignId, status: 'sent' }).count<{ n: string }[]>('* as n').first();
      return { ...row, sent: Number(sent?.n ?? 0) };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, ...WORKER_NODE_FLAGS, '--import', 'tsx', 'bench/lib/marketing-worker-child.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  while (!output.includes('ready')) await new Promise((resolve) => setTimeout(resolve, 20));
  (child as ChildProcess & { output: () => string }).output = () => output;
  return child;
}

async function stopWorker(child: ChildProcess): Promise<number> {
  child.kill('SIGTERM');
  await once(child, 'exit');
  const output = (child as ChildProcess & { output: () => string }).output();
  return (JSON.parse(output.trim().split('\n').pop()!) as { peakRssMb: number }).peakRssMb;
}

/**
 * Accepts every message and throws it away, counting: a few lines of SMTP over net (no parsing
 * beyond finding the end of DATA), so the sink costs next to nothing next to what is measured.
 */
async function startSink(): Promise<{ server: net.Server; port: number; count: number }> {
  const sink = { server: null as unknown as net.Server, port: 0, count: 0 };
  sink.server = net.createServer((socket) => {
    socket.setNoDelay(true);
    let inData = false;
    let buffer = '';
    socket.write('220 sink ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end === -1) {
            buffer = buffer.slice(-4);
            return;
          }
          buffer = buffer.slice(end + 5);
          inData = false;
          sink.count += 1;
          socket.write('250 2.0.0 queued\r\n');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol === -1) return;
        const line = buffer.slice(0, eol).toUpperCase();
        buffer = buffer.slice(eol + 2);
        if (line.startsWith('EHLO')) socket.write('250-sink\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n');
        else if (line.startsWith('DATA')) {
          inData = true;
          buffer = `\r\n${buffer}`;
          socket.write('354 go ahead\r\n');
        } else if (line.startsWith('QUIT')) socket.end('221 bye\r\n');
        else socket.write('250 OK\r\n');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => sink.server.listen(0, '127.0.0.1', resolve));
  sink.port = (sink.server.address() as net.AddressInfo).port;
  return sink;
}
