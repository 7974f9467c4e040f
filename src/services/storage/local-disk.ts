import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { notFound } from '../../errors.js';
import { PRIVATE_FILE_MODE, privateDir } from './private-files.js';
import type { ObjectStorage, StoredObject } from './types.js';

const KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/**
 * Objects as files under one root directory. Writes go to a temporary name first and are renamed
 * into place, so a reader never sees half a file and a failed upload leaves nothing behind. Files
 * are 0600 and folders 0700 (private-files.ts): exports and uploads hold customers' data.
 */
export class LocalDiskStorage implements ObjectStorage {
  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    if (!KEY.test(key) || key.split('/').includes('..')) throw new Error(`invalid storage key: ${key}`);
    return path.join(this.root, key);
  }

  async put(key: string, body: Readable): Promise<{ size: number }> {
    const target = this.pathOf(key);
    await privateDir(path.dirname(target));
    const temporary = `${target}.${randomBytes(6).toString('hex')}.part`;
    try {
      await pipeline(body, createWriteStream(temporary, { flags: 'wx', mode: PRIVATE_FILE_MODE }));
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return { size: (await stat(target)).size };
  }

  async get(key: string): Promise<StoredObject> {
    const file = this.pathOf(key);
    try {
      const info = await stat(file);
      // Large reads: CSV imports stream tens of MB through here.
      return { body: createReadStream(file, { highWaterMark: 256 * 1024 }), size: info.size };
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') throw notFound('File');
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
