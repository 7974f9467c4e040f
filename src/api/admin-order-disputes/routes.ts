import { listDisputes } from '../../services/orders/index.js';
import { ANY_MEMBER } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { disputesResponse } from './schemas.js';

export const disputesRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/orders/{orderId}/disputes',
  options: {
    description:
      "The disputes of the order's card payments, oldest first, as Stripe's charge.dispute.* events last reported them (not paged: one per charge at most). Each opening, change and close is also on the timeline (dispute_opened, dispute_updated, dispute_closed), and an open one is an issue of the store",
    tags: ['orders'],
    validate: { params: idParams('orderId') },
    response: { status: { 200: disputesResponse } },
    handler: adminHandler<{ orderId: string }>(({ ctx, storeId, params }) => listDisputes(ctx, storeId, params.orderId))
  }
});
