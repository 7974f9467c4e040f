import { followClick } from '../../services/marketing/index.js';
import { publicHandler } from '../handler.js';
import { publicRoute } from '../route-helpers.js';
import { clickParams } from './schemas.js';

/** Links in campaign mail: counts the click, then 302 to the URL signed into the token (nothing else). hapi answers HEAD here too, uncounted. */
export const campaignClickRoute = publicRoute({
  method: 'GET',
  path: '/public/c/{clickToken}',
  options: {
    description: 'Campaign link: counts the click and redirects (302) to the URL signed into the token; tampered or unknown 404. HEAD answers the same without counting',
    tags: ['marketing'],
    validate: { params: clickParams },
    plugins: {
      openapi: {
        success: {
          status: 302,
          description: 'Found: the link target, in Location',
          content: null,
          headers: { Location: { description: 'the URL signed into the token', schema: { type: 'string', format: 'uri' } } }
        }
      }
    },
    handler: publicHandler<{ clickToken: string }>(async ({ ctx, params, request, h }) => {
      const url = await followClick(ctx, params.clickToken, { count: request.method === 'get' });
      return h.redirect(url).code(302).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    })
  }
});
