import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const DIR_PREFIX = 'shopwright-redis-cluster-';

/**
 * The ports the test cluster's masters may take (their bus ports are 10000 above): exactly
 * TEST_REDIS_CLUSTER_PORTS (comma-separated) when set, else the first free of 7101-7103, 7104-7106
 * and 7107-7109 (two runs on one machine each get their own).
 */
const PORT_CHOICES: number[][] = process.env.TEST_REDIS_CLUSTER_PORTS
  ? [process.env.TEST_REDIS_CLUSTER_PORTS.split(',').map((port) => Number(port.trim()))]
  : [
      [7101, 7102, 7103],
      [7104, 7105, 7106],
      [7107, 7108, 7109]
    ];

export interface LocalRedisCluster {
  /** For REDIS_CLUSTER_NODES: `127.0.0.1:port,…`. */
  nodes: string;
  ports: number[];
  /** Kills one node (SIGKILL, like a crash) and waits for it to be gone. */
  kill(port: number): Promise<void>;
  /** Starts a killed node again (it rejoins with its slots, its data gone) and waits for cluster_state:ok. */
  restart(port: number): Promise<void>;
  stop(): Promise<void>;
}

/** Why a cluster cannot run here (no redis-server/redis-cli on PATH), or null. */
export function clusterUnavailable(): string | null {
  for (const program of ['redis-server', 'redis-cli']) {
    if (spawnSync(program, ['--version'], { stdio: 'ignore' }).status !== 0) return `${program} is not installed: the Redis Cluster run needs it`;
  }
  return null;
}

const cli = (port: number, ...args: string[]) => run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function answering(port: number): Promise<void> {
  for (let i = 0; !(await cli(port, 'PING').catch(() => null))?.stdout.includes('PONG'); i++) {
    if (i > 100) throw new Error(`redis-server on port ${port} did not start`);
    await sleep(50);
  }
}

async function clusterOk(port: number): Promise<void> {
  for (let i = 0; !(await cli(port, 'CLUSTER', 'INFO').catch(() => null))?.stdout.includes('cluster_state:ok'); i++) {
    if (i > 300) throw new Error(`the cluster node on port ${port} did not reach cluster_state:ok`);
    await sleep(50);
  }
}

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Whether a port (and its bus port) can be ours: free, or held by a test cluster whose run is gone
 * (killed before its teardown: its directory names its pid), which is then shut down. A live run's
 * cluster or anyone else's Redis is left alone.
 */
async function claim(port: number): Promise<boolean> {
  const answer = await cli(port, 'CONFIG', 'GET', 'dir').catch(() => null);
  if (answer) {
    const leftover = new RegExp(`\\S*${DIR_PREFIX}(\\d+)-\\S*`).exec(answer.stdout);
    if (!leftover || alive(Number(leftover[1]))) return false;
    await cli(port, 'SHUTDOWN', 'NOSAVE').catch(() => undefined);
    for (let i = 0; i < 50 && (await cli(port, 'PING').catch(() => null)); i++) await sleep(100);
    // Removed once its other nodes are down too (a node shutting down writes its nodes file there).
    if (path.dirname(leftover[0]) === os.tmpdir()) leftoverDirs.add(leftover[0]);
  }
  return (await canListen(port)) && (await canListen(port + 10_000));
}

const leftoverDirs = new Set<string>();

async function choosePorts(): Promise<number[]> {
  for (const ports of PORT_CHOICES) {
    let free = true;
    // Every port is looked at (not only up to the first busy one): a leftover is shut down whole.
    for (const port of ports) free = (await claim(port)) && free;
    if (free) {
      for (const dir of leftoverDirs) await rm(dir, { recursive: true, force: true });
      return ports;
    }
  }
  throw new Error(`no free ports for a test Redis Cluster among ${PORT_CHOICES.map((ports) => ports.join(',')).join(' / ')}: set TEST_REDIS_CLUSTER_PORTS`);
}

/**
 * Three (or TEST_REDIS_CLUSTER_PORTS') `redis-server --cluster-enabled yes` masters in a temporary
 * directory, joined by `redis-cli --cluster create … --cluster-replicas 0`, resolved once every
 * node says `cluster_state:ok`. `stop` (also run when this process exits, whatever the reason
 * short of SIGKILL) shuts them down and removes the directory.
 */
export async function startRedisCluster(): Promise<LocalRedisCluster> {
  const ports = await choosePorts();
  const dir = await mkdtemp(path.join(os.tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  const servers = new Map<number, ChildProcess>();
  const startServer = (port: number) =>
    spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--cluster-node-timeout', '2000'],
      { stdio: 'ignore' }
    );
  const killAll = () => {
    for (const server of servers.values()) if (server.exitCode === null) server.kill('SIGKILL');
  };
  process.once('exit', killAll);
  const stop = async () => {
    process.off('exit', killAll);
    await Promise.all(
      [...servers.values()].map(
        (server) =>
          new Promise<void>((resolve) => {
            if (server.exitCode !== null || server.signalCode !== null) return resolve();
            server.once('exit', () => resolve());
            server.kill('SIGTERM');
            setTimeout(() => server.kill('SIGKILL'), 3_000).unref();
          })
      )
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) servers.set(port, startServer(port));
    for (const port of ports) await answering(port);
    await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
    for (const port of ports) await clusterOk(port);
  } catch (error) {
    await stop();
    throw error;
  }
  const kill = async (port: number) => {
    const server = servers.get(port)!;
    if (server.exitCode !== null || server.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      server.once('exit', () => resolve());
      server.kill('SIGKILL');
    });
  };
  const restart = async (port: number) => {
    servers.set(port, startServer(port));
    await answering(port);
    for (const other of ports) await clusterOk(other);
  };
  return { nodes: ports.map((port) => `127.0.0.1:${port}`).join(','), ports, kill, restart, stop };
}
