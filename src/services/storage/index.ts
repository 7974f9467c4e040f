import type { AppContext } from '../../context.js';
import { LocalDiskStorage } from './local-disk.js';
import type { ObjectStorage } from './types.js';

export type { ObjectStorage, StoredObject } from './types.js';
export { LocalDiskStorage } from './local-disk.js';

const byContext = new WeakMap<AppContext, ObjectStorage>();

/** The storage for this process: local disk under STORAGE_DIR (one instance per context). */
export function storageFor(ctx: AppContext): ObjectStorage {
  let storage = byContext.get(ctx);
  if (!storage) {
    storage = new LocalDiskStorage(ctx.config.storageDir);
    byContext.set(ctx, storage);
  }
  return storage;
}
