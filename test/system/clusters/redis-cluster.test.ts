import { spawn } from 'node:child_process';
import { Cluster } from 'ioredis';
import t from 'tap';
import { QUEUE_NAMES } from '../../../src/jobs/queues.js';
import { clusterSeeds } from '../../../src/adapters/redis.js';
import { buildApp, signupOwner, type Teardownable } from '../../helpers/app.js';
import { clusterUnavailable, startRedisCluster, type LocalRedisCluster } from '../../helpers/redis-cluster.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';
import { compiledTestFile } from '../../helpers/test-files.js';

/**
 * Issue #27: everything Redis holds runs on a Redis Cluster (REDIS_CLUSTER_NODES). A local
 * 3-master cluster (test/helpers/redis-cluster.ts; REDIS_CLUSTER_NODES when set is used instead),
 * then (a) where the queues' keys land, and (b) the queue-heavy test files, run again as child
 * processes with REDIS_CLUSTER_NODES set (REDIS_URL unset): each must pass.
 */
const CLUSTER_FILES = (
  process.env.TEST_REDIS_CLUSTER_FILES ||
  // Longest first: two at a time, the run ends about when the longest pair does.
  [
    'marketing-crash',
    'outbox',
    'backends-shared-state',
    'customers-import-retry',
    'marketing-campaigns',
    'customers-import',
    'backends-campaign-rate',
    'newsletter-subscribe-limits',
    'storefront-http-cache',
    'queue-dashboard',
    'storefront-rate-limit'
  ].join(',')
)
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
/** Child files at once (the suite itself runs two files at a time beside this one). */
const PARALLEL = Math.max(1, Number(process.env.TEST_REDIS_CLUSTER_JOBS || 2));
const FILE_TIMEOUT_MS = 240_000;

t.setTimeout(600_000);

const unavailable = process.env.REDIS_CLUSTER_NODES ? null : clusterUnavailable();
if (unavailable) console.log(`# skipping the Redis Cluster tests: ${unavailable}`);

let cluster: LocalRedisCluster | null = null;
const nodes = async (): Promise<string> => {
  if (process.env.REDIS_CLUSTER_NODES) return process.env.REDIS_CLUSTER_NODES;
  cluster ??= await startRedisCluster();
  return cluster.nodes;
};
t.teardown(async () => {
  await cluster?.stop();
});

/** A connection of the test's own to every master, for looking at where keys are. */
async function inspector(t: Teardownable, clusterNodes: string): Promise<Cluster> {
  const seeds = clusterSeeds(clusterNodes.split(','));
  const redis = new Cluster(seeds.startupNodes, { redisOptions: seeds.redisOptions });
  t.teardown(() => redis.disconnect());
  await new Promise<void>((resolve, reject) => {
    redis.once('ready', resolve);
    redis.once('error', reject);
  });
  return redis;
}

t.test('each queue keeps its keys in one slot, and the queues spread over the masters', { skip: unavailable ?? false }, async (t) => {
  const clusterNodes = await nodes();
  const app = await buildApp(t, { env: { REDIS_URL: '', REDIS_CLUSTER_NODES: clusterNodes } });
  t.equal(app.ctx.backends.kind, 'redis');
  const health = await app.request({ url: '/health' });
  t.equal(health.status, 200);
  t.equal(health.body.data.redis, 'connected', 'the cluster answers the health check');

  // A delayed job in every queue (no worker runs), and a scheduler: several keys per queue.
  for (const name of QUEUE_NAMES) {
    const queue = app.ctx.queues.get(name);
    await queue.add('probe', { name }, { delay: 3_600_000 });
    await queue.upsertJobScheduler('probe-scheduler', { every: 3_600_000 }, { name: 'probe', data: {} });
  }

  const redis = await inspector(t, clusterNodes);
  const prefix = app.ctx.config.redisPrefix;
  const nodesByQueue = new Map<string, Set<string>>();
  const slotsByQueue = new Map<string, Set<number>>();
  for (const node of redis.nodes('master')) {
    const address = `${node.options.host}:${node.options.port}`;
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        const queue = /^[^{]*:\{([^}]+)\}:/.exec(key)?.[1];
        if (!queue) continue;
        if (!nodesByQueue.has(queue)) nodesByQueue.set(queue, new Set());
        if (!slotsByQueue.has(queue)) slotsByQueue.set(queue, new Set());
        nodesByQueue.get(queue)!.add(address);
        slotsByQueue.get(queue)!.add(Number(await node.call('CLUSTER', 'KEYSLOT', key)));
      }
    } while (cursor !== '0');
  }
  t.same([...nodesByQueue.keys()].sort(), [...QUEUE_NAMES].sort(), 'every queue has keys, each under its own hash tag');
  for (const [queue, slots] of slotsByQueue) t.equal(slots.size, 1, `the ${queue} queue's keys share one slot`);
  const masters = new Set([...nodesByQueue.values()].flatMap((set) => [...set]));
  t.ok(masters.size > 1, `the queues spread over ${masters.size} of ${redis.nodes('master').length} masters`);
});

t.test('REDIS_CLUSTER_NODES entries: host:port, or URLs whose credentials and TLS every node shares', async (t) => {
  t.same(clusterSeeds(['10.0.0.1:7000', '10.0.0.2:7001']), {
    startupNodes: [
      { host: '10.0.0.1', port: 7000 },
      { host: '10.0.0.2', port: 7001 }
    ],
    redisOptions: { username: undefined, password: undefined, tls: undefined }
  });
  const secured = clusterSeeds(['rediss://10.0.0.1:7000', 'rediss://app:s%3Acret@10.0.0.2:7001']);
  t.same(secured.redisOptions, { username: 'app', password: 's:cret', tls: {} });
  t.same(secured.startupNodes.map((node) => node.port), [7000, 7001]);
});

interface FileRun {
  file: string;
  code: number | null;
  output: string;
  ms: number;
}

/** One test file as its own process, on the cluster: as tap would run it, with its TAP output kept. */
function runFile(file: string, clusterNodes: string): Promise<FileRun> {
  const started = Date.now();
  // TAP_TIMEOUT: the file's own limit (tap's runner gives each file .taprc's 120 s), as long as ours:
  // beside the suite's other files the machine is busier than in a run of its own.
  const env: NodeJS.ProcessEnv = { ...process.env, REDIS_CLUSTER_NODES: clusterNodes, TAP_TIMEOUT: String(FILE_TIMEOUT_MS / 1000) };
  delete env.REDIS_URL;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, '--import', './dist/test/setup/dump-handles.js', compiledTestFile(file)], {
      env,
      stdio: ['ignore', 'pipe', 'pipe']
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      // What keeps it alive first (test/setup/dump-handles.ts), then the kill.
      child.kill('SIGUSR2');
      setTimeout(() => {
        output += `\n# killed after ${FILE_TIMEOUT_MS} ms`;
        child.kill('SIGKILL');
      }, 1_000);
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ file, code, output, ms: Date.now() - started });
    });
  });
}

/** Top-level results of a file's TAP output: its subtests' ok / not ok / skip lines. */
function summary(output: string): { pass: number; fail: number; skip: number } {
  const lines = output.split('\n').filter((line) => /^(not )?ok \d+/.test(line));
  const skip = lines.filter((line) => /# SKIP/i.test(line)).length;
  const fail = lines.filter((line) => line.startsWith('not ok') && !/# (SKIP|TODO)/i.test(line)).length;
  return { pass: lines.length - fail - skip, fail, skip };
}

t.test('the queue-heavy suites pass on a 3-master Redis Cluster', { skip: unavailable ?? false }, async (t) => {
  const clusterNodes = await nodes();
  const pending = [...CLUSTER_FILES];
  const runs: FileRun[] = [];
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let file = pending.shift(); file; file = pending.shift()) runs.push(await runFile(file, clusterNodes));
    })
  );
  for (const { file, code, output, ms } of runs.sort((a, b) => a.file.localeCompare(b.file))) {
    const { pass, fail, skip } = summary(output);
    const line = `${file}: ${pass} passed, ${fail} failed, ${skip} skipped in ${(ms / 1000).toFixed(1)} s on the cluster`;
    t.comment(line);
    for (const skipped of output.split('\n').filter((l) => /^\s*ok \d+.*# SKIP/i.test(l))) t.comment(`  ${skipped.trim()}`);
    t.ok(code === 0 && fail === 0 && pass > 0, line, code === 0 && fail === 0 ? {} : { exitCode: code, output: output.split('\n').slice(-150).join('\n') });
  }
});

t.test(
  'the master holding the email queue crashes and comes back: a subscribe meanwhile answers 200 and its mail goes out once it is back',
  { skip: unavailable ?? (process.env.REDIS_CLUSTER_NODES ? 'REDIS_CLUSTER_NODES names a cluster this test did not start: it kills no one else\'s node' : false) },
  async (t) => {
    const clusterNodes = await nodes();
    const smtp = await new SmtpCapture().start();
    t.teardown(() => smtp.stop());
    let killed: number | null = null;
    t.teardown(async () => {
      if (killed !== null) await cluster!.restart(killed);
    });
    const app = await buildApp(t, { workers: true, env: { REDIS_URL: '', REDIS_CLUSTER_NODES: clusterNodes, SMTP_URL: smtp.url, OUTBOX_POLL_MS: '200' } });
    const owner = await signupOwner(app);
    const redis = await inspector(t, clusterNodes);
    const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', '{email}'));
    const port = Number(redis.slots[slot]![0]!.split(':')[1]);

    killed = port;
    await cluster!.kill(port);
    const subscribe = await app.request({ method: 'POST', url: '/storefront/newsletter/subscribe', storefrontToken: owner.storefrontToken, payload: { email: 'failover@example.com' } });
    t.equal(subscribe.status, 200, `answered while the master on ${port} is down: ${subscribe.raw}`);
    t.ok(Number((await app.ctx.db('outbox').count('* as n').first())!.n) >= 1, 'the job intent waits in the outbox');
    await new Promise((resolve) => setTimeout(resolve, 500));
    t.equal(smtp.messages.length, 0, 'nothing is sent while its queue has no master');

    await cluster!.restart(port);
    killed = null;
    await smtp.waitFor((mail) => mail.envelopeTo.includes('failover@example.com'), 60_000);
    t.pass('the producer, the relay and the email worker came back with the master');
    const deadline = Date.now() + 20_000;
    while (Number((await app.ctx.db('outbox').count('* as n').first())!.n) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    t.equal(Number((await app.ctx.db('outbox').count('* as n').first())!.n), 0, 'the outbox drained');
  }
);
