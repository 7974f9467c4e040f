import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import { imageSizeFromFile } from 'image-size/fromFile';
import type { AppContext } from '../../context.js';
import { AppError, notFound, validationFailed } from '../../errors.js';
import { storageFor } from '../storage/index.js';
import type { Sql } from '../../db/transaction.js';

export const MEDIA_MAX_BYTES = 10 * 1024 * 1024;
export const ALLOWED_IMAGE_TYPES: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'avif'
};

export interface MediaRow {
  id: string;
  storeId: string;
  storageKey: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  alt: string | null;
  /** Where an imported image was fetched from (product CSV import); null for uploads. */
  sourceUrl?: string | null;
  createdAt: Date;
}

/** A file hapi has already streamed to a temporary path (multipart `output: 'file'`). */
export interface UploadedFile {
  path: string;
  bytes: number;
  filename?: string;
}

export const mediaUrl = (ctx: AppContext, mediaId: string) => `${ctx.config.appUrl}/api/v1/public/media/${mediaId}`;

export const toMediaDto = (ctx: AppContext, row: MediaRow) => ({
  id: row.id,
  url: mediaUrl(ctx, row.id),
  contentType: row.contentType,
  size: row.size,
  width: row.width,
  height: row.height,
  alt: row.alt,
  createdAt: row.createdAt
});

export const payloadTooLarge = () => new AppError(413, 'payload_too_large', `Media uploads are limited to ${MEDIA_MAX_BYTES / 1024 / 1024} MB`);
const unsupported = () =>
  new AppError(415, 'unsupported_media_type', 'Only JPEG, PNG, WebP, GIF and AVIF images can be uploaded', [
    { path: 'file', message: 'the file content is not an allowed image type' }
  ]);

async function dimensions(path: string): Promise<{ width: number | null; height: number | null }> {
  try {
    const size = await imageSizeFromFile(path);
    return { width: size.width ?? null, height: size.height ?? null };
  } catch {
    return { width: null, height: null };
  }
}

/**
 * Stores an uploaded image: the type comes from the file's magic bytes (never its name or the
 * client's content type), dimensions from its header. The temporary file is always removed.
 */
export async function createMedia(ctx: AppContext, storeId: string, file: UploadedFile, alt: string | null, sourceUrl: string | null = null) {
  try {
    if (file.bytes > MEDIA_MAX_BYTES) throw payloadTooLarge();
    if (file.bytes === 0) throw validationFailed([{ path: 'file', message: 'file is empty' }]);
    const sniffed = await fileTypeFromFile(file.path);
    const extension = sniffed ? ALLOWED_IMAGE_TYPES[sniffed.mime] : undefined;
    if (!sniffed || !extension) throw unsupported();
    const { width, height } = await dimensions(file.path);
    const id = randomUUID();
    const storageKey = `stores/${storeId}/media/${id}.${extension}`;
    const storage = storageFor(ctx);
    const { size } = await storage.put(storageKey, createReadStream(file.path), { contentType: sniffed.mime });
    try {
      const [row] = await ctx.db('media').insert({ id, storeId, storageKey, contentType: sniffed.mime, size, width, height, alt, sourceUrl }).returning('*');
      return toMediaDto(ctx, row as MediaRow);
    } catch (error) {
      await storage.delete(storageKey);
      throw error;
    }
  } finally {
    await rm(file.path, { force: true });
  }
}

/** The stored file behind a public media URL (ids are unguessable UUIDs; no store scoping). */
export async function openMedia(ctx: AppContext, mediaId: string) {
  const row: MediaRow | undefined = await ctx.db('media').comment('cross-store: public media url').where({ id: mediaId }).first();
  if (!row) throw notFound('Media');
  const object = await storageFor(ctx).get(row.storageKey);
  return { row, ...object };
}

/** Checks every id is media of this store; 422 naming the first one that is not. */
export async function assertStoreMedia(db: Sql, storeId: string, mediaIds: string[], path: string): Promise<void> {
  if (mediaIds.length === 0) return;
  const rows: Array<{ id: string }> = await db('media').where({ storeId }).whereIn('id', mediaIds).select('id');
  const found = new Set(rows.map((row) => row.id));
  const missing = mediaIds.findIndex((id) => !found.has(id));
  if (missing >= 0) throw validationFailed([{ path: `${path}.${missing}`, message: 'unknown media id' }]);
}
