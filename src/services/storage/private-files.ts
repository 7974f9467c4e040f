import { chmod, mkdir } from 'node:fs/promises';
import type { Logger } from '../../logger.js';

/**
 * What the service keeps on local disk (mail in the local outbox, password reset links among it;
 * customer exports; uploads) is for the service's own user only: files 0600, folders 0700. The
 * modes are given at creation rather than left to the umask (0644 and 0755 with the usual 022).
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/**
 * `dir` and any missing parents, 0700; `dir` itself made 0700 if it already existed looser (a
 * folder from before this rule: its new files must not sit in a listable folder).
 */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(dir, PRIVATE_DIR_MODE);
}

/**
 * At start: the storage root 0700, so that nothing under it, files written before this rule
 * included, is reachable by another user. A root the service cannot create or change (not its
 * own, a read-only mount) is logged, not fatal: writes fail later with their own error.
 */
export async function securePrivateRoot(root: string, log: Logger): Promise<void> {
  try {
    await privateDir(root);
  } catch (error) {
    log.warn({ err: { message: (error as Error).message }, root }, 'could not make the storage directory private (0700)');
  }
}
