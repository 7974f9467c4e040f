import { LocalDiskStorage } from './local-disk.js';
import type { ObjectStorage } from './types.js';

export type { ObjectStorage, StoredObject } from './types.js';
export { LocalDiskStorage } from './local-disk.js';

/** The storage of a process, chosen once by createContext: local disk under STORAGE_DIR (a cloud object store later). */
export function createStorage(config: { storageDir: string }): ObjectStorage {
  return new LocalDiskStorage(config.storageDir);
}
