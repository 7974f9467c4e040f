import { trackOrder } from '../../services/orders/index.js';
import { failValidationAsPage, pageForFailure } from '../public/html-failures.js';
import { htmlPage, wantsHtml } from '../public/html-page.js';
import { publicHandler } from '../handler.js';
import { publicRoute } from '../route-helpers.js';
import { trackedOrderResponse, trackingParams } from './schemas.js';
import { trackingNotFoundPage, trackingPage } from './tracking-page.js';

export const trackOrderRoute = publicRoute({
  method: 'GET',
  path: '/public/orders/{trackingToken}',
  options: {
    // A browser (Accept: text/html) gets a page, success or failure.
    plugins: { openapi: { html: true } },
    description:
      'Order tracking by the token from the confirmation email: status, items, total, fulfilments; unknown token 404. ' +
      'The emailed link opens it in a browser (Accept: text/html): a page showing the same.',
    tags: ['orders'],
    validate: { params: trackingParams, failAction: failValidationAsPage(() => trackingNotFoundPage()) },
    response: { status: { 200: trackedOrderResponse } },
    handler: publicHandler<{ trackingToken: string }>(async ({ ctx, params, request, h }) => {
      const tracked = trackOrder(ctx, params.trackingToken);
      if (!wantsHtml(request)) return tracked;
      try {
        return htmlPage(h, trackingPage(await tracked));
      } catch (error) {
        return pageForFailure(h, error, trackingNotFoundPage);
      }
    })
  }
});
