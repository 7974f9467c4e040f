import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { recordClick } from '../../services/marketing/clicks.js';
import { publicRoute } from '../route-helpers.js';

/** Links in campaign mail: counts the click, then 302 to the URL signed into the token (nothing else). */
export const campaignClickRoute = publicRoute({
  method: 'GET',
  path: '/public/c/{clickToken}',
  options: {
    description: 'Campaign link: counts the click and redirects (302) to the URL signed into the token; tampered or unknown 404',
    tags: ['marketing'],
    validate: { params: Joi.object({ clickToken: Joi.string().min(1).max(8000).required() }) },
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
    handler: async (request, h) => {
      const url = await recordClick(request.server.app.ctx, request.params.clickToken as string);
      return h.redirect(url).code(302).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    }
  }
});

export const publicClickRoutes: ServerRoute[] = [campaignClickRoute];
