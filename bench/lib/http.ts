import { spawn } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { cpuMsPerUnit, cpuPerUnit, cpuSnapshot, type CpuPerUnit } from './cpu-time.js';

export interface BenchServer {
  api: string;
  bare: string;
  pid: number;
  /** The database it serves from. */
  database: string;
  stop(): Promise<void>;
}

/** Starts `script` (the real API beside a bare route) in a child process against `databaseUrl`; resolves with its URLs. */
export async function startBenchServer(databaseUrl: string, env: Record<string, string> = {}, script = 'bench/lib/serve.ts'): Promise<BenchServer> {
  // BENCH_CPU_PROFILE=<dir>: the server writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', script], {
    env: { ...process.env, RATE_LIMIT_STOREFRONT_PER_TOKEN: '1000000000', RATE_LIMIT_STOREFRONT_PER_CLIENT: '1000000000', RATE_LIMIT_NEWSLETTER_PER_IP: '1000000000', ...env, DATABASE_URL: databaseUrl, NODE_ENV: 'development' },
    stdio: ['ignore', 'pipe', 'inherit']
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const [first] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(() => {
      throw new Error('bench server exited before listening');
    })
  ])) as [string];
  const urls = JSON.parse(first) as { api: string; bare: string };
  return {
    ...urls,
    pid: child.pid!,
    database: decodeURIComponent(new URL(databaseUrl).pathname.slice(1)),
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  };
}

export interface Measurement {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** CPU per request by process, when measured with `server`. */
  cpu?: CpuPerUnit;
}

/**
 * Runs autocannon against one URL and prints one line: req/s, p50, p99; with `server`, a second
 * line with the CPU per request of that server and of the PostgreSQL backends serving its database
 * (steadier than req/s on a shared machine).
 */
export async function measure(
  name: string,
  url: string,
  options: { headers?: Record<string, string>; connections?: number; duration?: number; server?: BenchServer } = {}
): Promise<Measurement> {
  // A short unmeasured run first, so JIT warm-up and cold caches do not count against the route.
  await autocannon({ url, headers: options.headers, connections: options.connections ?? 50, duration: 1 });
  const cpuBefore = options.server && cpuSnapshot(options.server.pid, options.server.database);
  const result = await autocannon({
    url,
    headers: options.headers,
    connections: options.connections ?? 50,
    duration: options.duration ?? Number(process.env.BENCH_DURATION ?? 8)
  });
  const cpuAfter = cpuBefore && cpuSnapshot(options.server!.pid, options.server!.database);
  const measurement: Measurement = {
    name,
    reqPerSec: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    cpu: cpuBefore && cpuAfter ? cpuMsPerUnit(cpuBefore, cpuAfter, result.requests.total) : undefined
  };
  console.log(
    `${name.padEnd(44)} ${String(measurement.reqPerSec).padStart(7)} req/s   p50 ${String(measurement.p50).padStart(4)} ms   p99 ${String(measurement.p99).padStart(4)} ms${measurement.non2xx ? `   non-2xx ${measurement.non2xx}` : ''}`
  );
  if (cpuBefore && cpuAfter) console.log(`  ${cpuPerUnit(cpuBefore, cpuAfter, result.requests.total, 'request')}`);
  return measurement;
}

export function ratio(part: Measurement, whole: Measurement): string {
  return `${((part.reqPerSec / whole.reqPerSec) * 100).toFixed(1)}%`;
}

/**
 * The same ratio from CPU per request instead of throughput: the bare route's CPU (server and load
 * generator) over the route's (server, PostgreSQL, load generator), that is the throughput ratio
 * of a machine where nothing else runs and the three share its cores. On a machine other work
 * keeps busy, throughput ratios swing with the neighbours; this one much less. Both measured with
 * `server`; '?' otherwise.
 */
export function cpuRatio(part: Measurement, whole: Measurement): string {
  if (!part.cpu || !whole.cpu) return '?';
  const cost = (cpu: CpuPerUnit) => cpu.serverMs + cpu.postgresMs + cpu.loadGeneratorMs;
  return `${((cost(whole.cpu) / cost(part.cpu)) * 100).toFixed(1)}%`;
}

/**
 * The same ratio with PostgreSQL's part taken out: what the route could reach were its SQL free,
 * its own process and the load generator unchanged. A goal above it is not in the SQL's reach.
 */
export function cpuCeilingWithoutSql(part: Measurement, whole: Measurement): string {
  if (!part.cpu || !whole.cpu) return '?';
  const wholeCost = whole.cpu.serverMs + whole.cpu.postgresMs + whole.cpu.loadGeneratorMs;
  return `${((wholeCost / (part.cpu.serverMs + part.cpu.loadGeneratorMs)) * 100).toFixed(1)}%`;
}

/** Like `measure`, for POSTs whose JSON body must differ per request (e.g. a new email each time). */
export async function measurePost(
  name: string,
  url: string,
  body: (n: number) => unknown,
  options: { headers?: Record<string, string>; connections?: number; duration?: number } = {}
): Promise<Measurement> {
  let n = 0;
  const run = (duration: number) =>
    autocannon({
      url,
      connections: options.connections ?? 50,
      duration,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...options.headers },
          setupRequest: (request) => ({ ...request, body: JSON.stringify(body(n++)) })
        }
      ]
    });
  await run(1);
  const result = await run(options.duration ?? Number(process.env.BENCH_DURATION ?? 8));
  const measurement = { name, reqPerSec: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
  console.log(
    `${name.padEnd(44)} ${String(measurement.reqPerSec).padStart(7)} req/s   p50 ${String(measurement.p50).padStart(4)} ms   p99 ${String(measurement.p99).padStart(4)} ms${measurement.non2xx ? `   non-2xx ${measurement.non2xx}` : ''}`
  );
  return measurement;
}

/** The body bytes one GET puts on the wire (no decompression) and its content coding. */
export function wireBytes(url: string, headers: Record<string, string>): Promise<{ bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => resolve({ bytes, encoding: String(response.headers['content-encoding'] ?? 'identity') }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}
