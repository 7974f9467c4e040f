import { ALLOWED_IMAGE_TYPES, openMedia } from '../../services/catalog/index.js';
import { publicHandler } from '../handler.js';
import { publicRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';

export const getPublicMediaRoute = publicRoute({
  method: 'GET',
  path: '/public/media/{mediaId}',
  options: {
    description: 'An uploaded image, with a year-long immutable cache lifetime (media never changes under its id)',
    tags: ['media'],
    validate: { params: idParams('mediaId') },
    plugins: {
      openapi: {
        notModified: true,
        success: {
          status: 200,
          description: 'The image bytes (JPEG, PNG, WebP, GIF or AVIF)',
          content: Object.fromEntries(Object.keys(ALLOWED_IMAGE_TYPES).map((type) => [type, { schema: { type: 'string', format: 'binary' } }]))
        }
      }
    },
    handler: publicHandler<{ mediaId: string }>(async ({ ctx, params, h }) => {
      const media = await openMedia(ctx, params.mediaId);
      return h
        .response(media.body)
        .type(media.row.contentType)
        .bytes(media.size)
        .etag(media.row.id)
        .header('cache-control', 'public, max-age=31536000, immutable');
    })
  }
});
