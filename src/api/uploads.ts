import { rm } from 'node:fs/promises';
import type { Plugin } from '@hapi/hapi';
/** A file hapi has streamed to a temporary path (`output: 'file'`, or a multipart part with `output: 'file'`). */
export interface UploadedFile {
  path: string;
  bytes: number;
  filename?: string;
}

export const isUploadedFile = (value: unknown): value is UploadedFile =>
  Boolean(value && typeof value === 'object' && typeof (value as UploadedFile).path === 'string' && typeof (value as UploadedFile).bytes === 'number');

/** Every uploaded temporary file in a parsed payload: the body itself, or any multipart part (repeated parts included). */
export function uploadedFilesIn(payload: unknown): UploadedFile[] {
  if (isUploadedFile(payload)) return [payload];
  if (!payload || typeof payload !== 'object' || Buffer.isBuffer(payload)) return [];
  return Object.values(payload as Record<string, unknown>)
    .flat()
    .filter(isUploadedFile);
}

/**
 * Removes every temporary upload once the response has gone out, on every path: success, a handler
 * error, a validation failure after the body was read, extra multipart parts nobody asked for.
 * Handlers copy what they keep into storage; a file already moved is simply not there any more.
 */
export const uploadCleanupPlugin: Plugin<void> = {
  name: 'shopwright-upload-cleanup',
  register(server) {
    const log = server.app.ctx.log;
    server.events.on('response', (request) => {
      const files = uploadedFilesIn(request.payload);
      if (!files.length) return;
      void Promise.all(files.map((file) => rm(file.path, { force: true }))).catch((error: Error) =>
        log.warn({ err: { message: error.message } }, 'could not remove a temporary upload')
      );
    });
  }
};
