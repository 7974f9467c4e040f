import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Plugin, Server } from '@hapi/hapi';
import { badRequest } from '../errors.js';
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
      // Only a route that streams its body (or a multipart part) to a file can leave one: every
      // other response skips the walk over its payload.
      const settings = request.route.settings.payload;
      const multipart = settings?.multipart;
      if (settings?.output !== 'file' && !(multipart && typeof multipart === 'object' && multipart.output === 'file')) return;
      const files = uploadedFilesIn(request.payload);
      if (!files.length) return;
      void Promise.all(files.map((file) => rm(file.path, { force: true }))).catch((error: Error) =>
        log.warn({ err: { message: error.message } }, 'could not remove a temporary upload')
      );
    });
  }
};

/** The size cap of CSV imports (customers, products). */
export const CSV_IMPORT_LIMIT = 50 * 1024 * 1024;

/** hapi streams the body (or the multipart `file` part) to a temporary file; nothing is held in memory. */
export function uploadedCsv(payload: unknown): UploadedFile {
  if (isUploadedFile(payload)) return payload;
  const file = (payload as Record<string, unknown> | null)?.file;
  if (isUploadedFile(file)) return file;
  throw badRequest('Send the CSV as a text/csv body or as the multipart field "file"', [{ path: 'file', message: 'file is required' }]);
}

/** A CSV import route's body: text/csv or multipart `file`, streamed to disk, up to 50 MB (and its OpenAPI request body). */
export function csvUploadOptions(description: string, errors: number[] = []) {
  return {
    plugins: {
      openapi: {
      errors: [400, 413, 415, ...errors],
      requestBody: {
        description,
        content: {
          'text/csv': { schema: { type: 'string', format: 'binary' } },
          'multipart/form-data': {
            schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', description: 'the CSV file' } }, additionalProperties: false },
            encoding: { file: { contentType: 'text/csv' } }
          }
        }
      }
      }
    },
    payload: {
      output: 'file' as const,
      parse: true,
      multipart: { output: 'file' as const },
      maxBytes: CSV_IMPORT_LIMIT,
      timeout: 120_000,
      allow: ['text/csv', 'multipart/form-data']
    },
    // A 50 MB body may take the whole payload timeout to arrive: the response timeout must outlast it.
    timeout: { server: 150_000, socket: 170_000 }
  };
}

/**
 * Where hapi streams upload bodies: UPLOAD_TMP_DIR as configured (created 0700 when missing), or by
 * default a folder of this server's own under the system temp dir, 0700 and removed when the server
 * stops. The temporary files themselves are created 0644 by hapi; in a private folder no other user
 * can open them (a customer CSV sits there while it is read).
 */
export async function uploadDirectory(configured: string): Promise<{ dir: string; attach(server: Server): void }> {
  if (configured) {
    await mkdir(configured, { recursive: true, mode: 0o700 });
    return { dir: configured, attach: () => undefined };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'shopwright-uploads-'));
  return {
    dir,
    attach: (server) =>
      server.ext('onPostStop', async () => {
        await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      })
  };
}
