import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, cp, mkdir, realpath, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { Binaries } from './binaries.js';
import { isPostgres, readPostmaster, stopPostmaster, type ClusterPaths } from './cluster.js';
import { exists } from './lease.js';
import type { RunAs } from './os-user.js';

/**
 * As root, PostgreSQL runs as the user `postgres`, which must reach its programs and its data. A
 * checkout in a directory only root may enter (/root is 0700) keeps both out of reach; then the
 * programs are copied, and the data placed, under /var/tmp (kept across reboots), with
 * `.data/pg/data` a symlink to it. Anyone else runs PostgreSQL as themselves: nothing to do.
 */
const OUTSIDE = '/var/tmp/shopwright-embedded-postgres';

const tag = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

/** Whether the user `who` may enter `dir` (every directory on its path). */
function canEnter(who: RunAs, dir: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', 'cd "$1"', 'sh', dir], { stdio: 'ignore', uid: who.uid, gid: who.gid });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

async function makeOutside(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await chmod(OUTSIDE, 0o755);
  await chmod(dir, 0o755);
}

export async function reachableBinaries(bin: Binaries, who: RunAs): Promise<Binaries> {
  const binDir = path.dirname(bin.postgres);
  if (who.uid === undefined || (await canEnter(who, binDir))) return bin;
  const native = path.dirname(binDir);
  const copy = path.join(OUTSIDE, `bin-${tag(await realpath(native))}`);
  const moved = (file: string) => path.join(copy, 'bin', path.basename(file));
  if (!(await exists(moved(bin.postgres)))) {
    await makeOutside(OUTSIDE);
    const partial = `${copy}.${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    await cp(native, partial, { recursive: true, verbatimSymlinks: true });
    await rename(partial, copy).catch(async () => rm(partial, { recursive: true, force: true }));
  }
  return { initdb: moved(bin.initdb), pgCtl: moved(bin.pgCtl), postgres: moved(bin.postgres) };
}

/** The cluster's real data directory and log: in place, or (root, out of reach) under /var/tmp. */
export async function placeData(paths: ClusterPaths, who: RunAs): Promise<ClusterPaths> {
  const real = await realpath(paths.data).catch(() => paths.data);
  if (real !== paths.data) return { ...paths, data: real, log: path.join(path.dirname(real), 'postgres.log') };
  if (who.uid === undefined || (await exists(path.join(paths.data, 'PG_VERSION')))) return paths;
  await mkdir(paths.dir, { recursive: true });
  await chmod(paths.dir, 0o755);
  if (await canEnter(who, paths.dir)) return paths;
  const outside = path.join(OUTSIDE, `data-${tag(paths.dir)}`);
  await makeOutside(outside);
  if (!(await exists(paths.passwordFile))) await clearOrphan({ ...paths, data: path.join(outside, 'data') });
  await rm(paths.data, { recursive: true, force: true });
  await symlink(path.join(outside, 'data'), paths.data);
  return { ...paths, data: path.join(outside, 'data'), log: path.join(outside, 'postgres.log') };
}

/**
 * A cluster an earlier checkout at the same path left outside (the checkout deleted, its link and
 * password file with it): nothing can reach it any more, so its server is stopped and its data
 * removed, and this checkout starts with an empty one. Without this, a new clone where an old one
 * stood failed to start ("password is missing"). Only called when this checkout has no password.
 */
async function clearOrphan(orphan: ClusterPaths): Promise<void> {
  if (!(await exists(orphan.data))) return;
  const postmaster = await readPostmaster(orphan);
  if (postmaster && (await isPostgres(postmaster.pid))) await stopPostmaster(orphan, postmaster.pid);
  await rm(orphan.data, { recursive: true, force: true });
}
