import type { Readable } from 'node:stream';

export interface StoredObject {
  body: Readable;
  size: number;
}

/**
 * Where uploaded files live. Keys are relative, slash-separated paths; bodies are streams both ways,
 * so an S3-compatible implementation (PutObject with a streamed body, GetObject's body stream,
 * DeleteObject) fits the same shape as the local disk one.
 */
export interface ObjectStorage {
  /** Stores the whole stream under `key`, replacing any previous object. */
  put(key: string, body: Readable, options?: { contentType?: string }): Promise<{ size: number }>;
  /** Throws a 404 AppError when the key does not exist. */
  get(key: string): Promise<StoredObject>;
  /** Removes the object; missing keys are not an error. */
  delete(key: string): Promise<void>;
}
