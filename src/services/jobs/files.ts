import { createReadStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';

/**
 * Job files (uploaded imports, built exports) live under `config.storageDir` by a relative key such
 * as `imports/<storeId>/<jobId>.csv`; only keys we built ourselves reach here.
 */
export function storagePath(ctx: AppContext, key: string): string {
  const root = ctx.config.storageDir;
  const full = path.resolve(root, key);
  if (!full.startsWith(root + path.sep)) throw new Error(`storage key escapes the storage dir: ${key}`);
  return full;
}

/** Moves a file (e.g. hapi's temporary upload) to its storage key; copies across file systems. */
export async function moveIntoStorage(ctx: AppContext, from: string, key: string): Promise<string> {
  const target = storagePath(ctx, key);
  await mkdir(path.dirname(target), { recursive: true });
  try {
    await rename(from, target);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EXDEV') throw error;
    await copyFile(from, target);
    await rm(from, { force: true });
  }
  return target;
}

export async function removeStoredFile(ctx: AppContext, key: string): Promise<void> {
  await rm(storagePath(ctx, key), { force: true });
}

export async function openStoredFile(ctx: AppContext, key: string) {
  const full = storagePath(ctx, key);
  const info = await stat(full).catch(() => null);
  if (!info) throw notFound('Job file');
  return { stream: createReadStream(full), bytes: info.size };
}
