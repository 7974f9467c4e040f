import { trackOrder } from '../../services/orders/public-tracking.js';
import { publicRoute } from '../route-helpers.js';
import { trackedOrderResponse, trackingParams } from './schemas.js';

export const trackOrderRoute = publicRoute({
  method: 'GET',
  path: '/public/orders/{trackingToken}',
  options: {
    description: 'Order tracking by the token from the confirmation email: status, items, total, fulfilments; unknown token 404',
    tags: ['orders'],
    validate: { params: trackingParams },
    response: { status: { 200: trackedOrderResponse } },
    handler: (request) => trackOrder(request.server.app.ctx, request.params.trackingToken as string)
  }
});
