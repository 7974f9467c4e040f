import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';

/**
 * Real `web` and `worker` processes (the Procfile's entry points) as child processes, configured by
 * environment variables only, the way a deployment runs several of each against one database and
 * one Redis. From the built tests (dist/test/…) they run the compiled dist/src/… files: no tsx
 * compile at boot, which is slow on a loaded machine; from the sources, `node --import tsx`.
 */
export type Role = 'web' | 'worker';

const fromDist = import.meta.url.endsWith('.js');
const ENTRY: Record<Role, string> = {
  web: fileURLToPath(new URL(`../../src/api/index.${fromDist ? 'js' : 'ts'}`, import.meta.url)),
  worker: fileURLToPath(new URL(`../../src/workers/index.${fromDist ? 'js' : 'ts'}`, import.meta.url))
};

export interface AppProcess {
  role: Role;
  name: string;
  child: ChildProcess;
  /** The API base (`http://127.0.0.1:PORT/api/v1`) of a web process. */
  base: string;
  /** What it wrote on stderr (its warnings and errors), for failure messages. */
  stderr(): string;
  exited: Promise<unknown>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

export async function spawnProcess(role: Role, name: string, env: Record<string, string>): Promise<AppProcess> {
  const port = role === 'web' ? await freePort() : 0;
  const args = fromDist ? [ENTRY[role]] : ['--import', 'tsx', ENTRY[role]];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, ...(role === 'web' ? { PORT: String(port), HOST: '127.0.0.1' } : {}) },
    stdio: ['ignore', 'ignore', 'pipe']
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  const exited = child.exitCode !== null ? Promise.resolve() : once(child, 'exit');
  return {
    role,
    name,
    child,
    base: `http://127.0.0.1:${port}/api/v1`,
    stderr: () => stderr,
    exited,
    async kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    }
  };
}

/** Resolves once a web process answers /health 200 (up to `timeoutMs`: boots are slow on a busy machine). */
export async function waitHealthy(web: AppProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (web.child.exitCode !== null) throw new Error(`${web.name} exited (${web.child.exitCode}): ${web.stderr()}`);
    const ok = await fetch(`${web.base}/health`).then((r) => r.ok, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${web.name} not healthy after ${timeoutMs} ms: ${web.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface Call {
  method?: string;
  path: string;
  body?: unknown;
  /** Sent as is (a CSV upload) with `contentType`. */
  raw?: string | Buffer;
  contentType?: string;
  token?: string;
  storeId?: string;
  storefrontToken?: string;
  headers?: Record<string, string>;
}

export interface CallResult<T = any> {
  status: number;
  body: T;
  text: string;
}

/** One HTTP request to a web process's API. */
export async function call<T = any>(web: AppProcess, options: Call): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.storeId) headers['x-store-id'] = options.storeId;
  if (options.storefrontToken) headers['x-storefront-token'] = options.storefrontToken;
  let body: string | Buffer | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
    headers['content-type'] = options.contentType ?? 'application/octet-stream';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${web.base}${options.path}`, { method: options.method ?? 'GET', headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed as T, text };
}

export async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return true;
}

/**
 * The process ids holding TCP connections to a local port right now (`ss -tnp`), or null where `ss`
 * cannot tell (not installed): which of our processes talk to a server the test runs.
 */
export async function pidsConnectedTo(port: number): Promise<Set<number> | null> {
  const { execFile } = await import('node:child_process');
  const out = await new Promise<string | null>((resolve) =>
    execFile('ss', ['-tnpH', 'dst', `127.0.0.1:${port}`], (error, stdout) => resolve(error ? null : stdout))
  );
  if (out === null) return null;
  return new Set([...out.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1])));
}

/**
 * For a child that runs the start bundle (scripts/start.mjs, so `npm start`): no coverage of its
 * own. The bundle maps its code back to src/ with function ranges a character off those of tsc's
 * build, so tap counted each function the bundle loaded a second time, that copy mostly uncalled:
 * two such children took the suite's function coverage from 94% to 75%, under .taprc's floor, and
 * failed a run whose every test passed. The tsc build's own coverage is the suite's measure.
 */
export const NO_BUNDLE_COVERAGE = { _TAPJS_PROCESSINFO_COVERAGE_: '0' } as const;

/**
 * The environment of an app process a test starts the way an operator does (`npm start` and the
 * like): development, JSON log lines at info (the test reads them), any free port on 127.0.0.1,
 * its own database and storage, and cheap password hashing.
 */
export function operatorEnv(databaseUrl: string, storageDir: string): Record<string, string> {
  return { NODE_ENV: 'development', LOG_LEVEL: 'info', LOG_FORMAT: 'json', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: databaseUrl, STORAGE_DIR: storageDir, PASSWORD_HASH_COST: '1024' };
}
