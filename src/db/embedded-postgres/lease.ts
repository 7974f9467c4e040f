import { readFileSync } from 'node:fs';
import { link, mkdir, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Sharing one server between processes (`npm run web` beside `npm run worker`, two test runs):
 * - a lock file (`lock`, holding its owner's pid) serialises starting and stopping;
 * - `users/<pid>` lists the processes using the server; the last one to leave stops it, and the
 *   files of processes that died (SIGKILL) are pruned, so a crashed run never keeps it alive.
 */

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** A process that exited but was not reaped yet (Linux; where PID 1 does not reap, it stays so). */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function ownerOf(lockFile: string): Promise<number | null> {
  try {
    return Number.parseInt(await readFile(lockFile, 'utf8'), 10);
  } catch {
    return null;
  }
}

/** Runs `fn` holding the lock of `dir`; a lock whose owner died is taken over. */
export async function withLock<T>(dir: string, fn: () => Promise<T>, timeoutMs = 120_000): Promise<T> {
  await mkdir(dir, { recursive: true });
  const lockFile = path.join(dir, 'lock');
  const mine = path.join(dir, `lock.${process.pid}`);
  await writeFile(mine, String(process.pid));
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        // link() is atomic and fails when the lock exists: the lock always names its owner.
        await link(mine, lockFile);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = await ownerOf(lockFile);
      if (owner !== null && !isAlive(owner)) {
        await unlink(lockFile).catch(() => undefined);
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${lockFile} is held by process ${owner ?? '?'} for too long`);
      await sleep(50 + Math.random() * 50);
    }
  } finally {
    await unlink(mine).catch(() => undefined);
  }
  try {
    return await fn();
  } finally {
    if ((await ownerOf(lockFile)) === process.pid) await unlink(lockFile).catch(() => undefined);
  }
}

const usersDir = (dir: string) => path.join(dir, 'users');

/** Adds this process to the server's users. */
export async function join(dir: string): Promise<void> {
  await mkdir(usersDir(dir), { recursive: true });
  await writeFile(path.join(usersDir(dir), String(process.pid)), '');
}

/** Removes this process; returns the pids of the users still alive (dead ones are pruned). */
export async function leave(dir: string): Promise<number[]> {
  await rm(path.join(usersDir(dir), String(process.pid)), { force: true });
  return liveUsers(dir);
}

export async function liveUsers(dir: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(usersDir(dir));
  } catch {
    return [];
  }
  const alive: number[] = [];
  for (const name of names) {
    const pid = Number.parseInt(name, 10);
    if (isAlive(pid)) alive.push(pid);
    else await rm(path.join(usersDir(dir), name), { force: true });
  }
  return alive;
}

/** Whether a path exists. */
export async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
