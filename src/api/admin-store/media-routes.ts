import { ALLOWED_IMAGE_TYPES, createMedia, MEDIA_MAX_BYTES, payloadTooLarge } from '../../services/catalog/index.js';
import { rm } from 'node:fs/promises';
import { validationFailed } from '../../errors.js';
import { ANY_MEMBER } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { isUploadedFile } from '../uploads.js';
import { mediaResponse } from './schemas.js';

/** Multipart framing around the file (boundaries, part headers, the alt field). */
const MULTIPART_OVERHEAD = 64 * 1024;

/**
 * hapi streams the file part to a temporary file as it arrives (never the whole body in memory),
 * counting bytes and answering 413 past the limit; the service sniffs, measures and stores it.
 */
export const uploadMedia = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/store/media',
  options: {
    plugins: {
      openapi: {
        errors: [400, 413, 415],
        requestBody: {
          description: 'The image as the multipart field `file` (sniffed: JPEG, PNG, WebP, GIF or AVIF, up to 10 MB), with an optional `alt` text',
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file'],
                properties: { file: { type: 'string', format: 'binary' }, alt: { type: 'string', maxLength: 500, description: 'alternative text' } },
                additionalProperties: false
              },
              encoding: { file: { contentType: Object.keys(ALLOWED_IMAGE_TYPES).join(', ') } }
            }
          }
        }
      }
    },
    description: 'Upload an image (multipart field `file`, optional `alt`); JPEG, PNG, WebP, GIF or AVIF, up to 10 MB',
    tags: ['media'],
    response: { status: { 201: mediaResponse } },
    payload: {
      output: 'stream',
      parse: true,
      multipart: { output: 'file' },
      maxBytes: MEDIA_MAX_BYTES + MULTIPART_OVERHEAD,
      allow: 'multipart/form-data',
      timeout: 60_000
    },
    // The body may take the whole payload timeout to arrive: the response timeout must outlast it.
    timeout: { server: 75_000, socket: 90_000 },
    handler: adminHandler<{}, Record<string, unknown> | null>(async ({ ctx, storeId, h, ...call }) => {
      const payload = call.payload ?? {};
      const files = Object.values(payload).flat().filter(isUploadedFile);
      try {
        const unknown = Object.keys(payload).filter((key) => key !== 'file' && key !== 'alt');
        if (unknown.length) throw validationFailed(unknown.map((key) => ({ path: key, message: `${key} is not allowed` })));
        const file = payload.file;
        if (!isUploadedFile(file)) throw validationFailed([{ path: 'file', message: 'exactly one file is required in the field `file`' }]);
        if (file.bytes > MEDIA_MAX_BYTES) throw payloadTooLarge();
        const alt = typeof payload.alt === 'string' ? payload.alt.trim().slice(0, 500) || null : null;
        if (payload.alt !== undefined && typeof payload.alt !== 'string') throw validationFailed([{ path: 'alt', message: 'alt must be text' }]);
        const media = await createMedia(ctx, storeId, file, alt);
        return h.response({ media }).code(201);
      } finally {
        // createMedia removes its own file; this catches every other part and the error paths.
        await Promise.all(files.map((f) => rm(f.path, { force: true })));
      }
    })
  }
});
