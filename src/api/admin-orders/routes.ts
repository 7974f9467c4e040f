import { cancelOrder, type CancelInput } from '../../services/orders/cancel.js';
import { createFulfillment, type FulfillmentInput } from '../../services/orders/fulfillments.js';
import { markOrderPaid } from '../../services/orders/manual-payments.js';
import { getOrder, listOrders, type OrderListFilters } from '../../services/orders/orders.js';
import { userActor } from '../../services/orders/timeline.js';
import { paginationMeta } from '../../services/pagination.js';
import { ADMINS, ANY_MEMBER } from '../../services/roles.js';
import { idempotent } from '../idempotency.js';
import { tenantOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { cancelPayload, fulfillmentCreatedResponse, fulfillmentPayload, listOrdersQuery, markPaidPayload, orderListResponse, orderResponse } from './schemas.js';

export const listOrdersRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/orders',
  options: {
    description:
      'Orders, newest first (keyset pages); status = an order status (open, completed, cancelled); paymentStatus (pending, paid, refunded, failed) ' +
      'and fulfillmentStatus (unfulfilled, partially_fulfilled, fulfilled) filter those columns; filters combine; q = order number or email',
    tags: ['orders'],
    validate: { query: listOrdersQuery },
    response: { status: { 200: orderListResponse } },
    handler: async (request) => {
      const { limit, cursor, q, ...filters } = request.query as { limit: number; cursor?: string; q?: string } & Omit<OrderListFilters, 'q'>;
      const result = await listOrders(request.server.app.ctx, tenantOf(request).storeId, { ...filters, q: q || undefined }, { limit, cursor });
      return withMeta({ orders: result.orders }, paginationMeta(limit, result.nextCursor));
    }
  }
});

export const getOrderRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/orders/{orderId}',
  options: {
    description: 'An order with items, fulfilments, refunds and its public tracking URL',
    tags: ['orders'],
    validate: { params: idParams('orderId') },
    response: { status: { 200: orderResponse } },
    handler: (request) => getOrder(request.server.app.ctx, tenantOf(request).storeId, request.params.orderId as string)
  }
});

export const createFulfillmentRoute = idempotent(
  adminRoute(ANY_MEMBER, {
    method: 'POST',
    path: '/admin/orders/{orderId}/fulfillments',
    options: {
      plugins: { openapi: { errors: [409] } },
      description: 'Fulfil items (default: everything unfulfilled) with tracking details; emails shipping_confirmation unless notifyCustomer is false; 409 already_fulfilled',
      tags: ['orders'],
      validate: { params: idParams('orderId'), payload: fulfillmentPayload },
      response: { status: { 201: fulfillmentCreatedResponse } },
      handler: async (request, h) => {
        const body = (request.payload ?? {}) as FulfillmentInput;
        const input: FulfillmentInput = {
          ...body,
          trackingCompany: body.trackingCompany || null,
          trackingNumber: body.trackingNumber || null,
          trackingUrl: body.trackingUrl || null
        };
        const tenant = tenantOf(request);
        const result = await createFulfillment(request.server.app.ctx, tenant.storeId, request.params.orderId as string, input, userActor(tenant.userId));
        return h.response(result).code(201);
      }
    }
  })
);

export const markOrderPaidRoute = idempotent(
  adminRoute(ANY_MEMBER, {
    method: 'POST',
    path: '/admin/orders/{orderId}/mark-paid',
    options: {
      plugins: { openapi: { errors: [409] } },
      description:
        'Record that a manual payment was collected (reference and note go on the timeline): payment pending becomes paid (then the order is no longer cancelled after the store setting manualPaymentDays, and its buyer may review); 409 for a Stripe order, an order already paid and a cancelled one',
      tags: ['orders'],
      validate: { params: idParams('orderId'), payload: markPaidPayload },
      response: { status: { 200: orderResponse } },
      handler: (request) => {
        const tenant = tenantOf(request);
        const body = (request.payload ?? {}) as { reference?: string; note?: string };
        return markOrderPaid(request.server.app.ctx, tenant.storeId, request.params.orderId as string, { reference: body.reference || undefined, note: body.note || undefined }, userActor(tenant.userId));
      }
    }
  })
);

export const cancelOrderRoute = idempotent(
  adminRoute(ADMINS, {
    method: 'POST',
    path: '/admin/orders/{orderId}/cancel',
    options: {
      plugins: { openapi: { errors: [409, 502] } },
      description:
        "Cancel an order while nothing of it is fulfilled (409 order_fulfilled: use a return): restock puts back its units no refund already put back (items[].restockedQuantity), its discount's use is given back, an authorised Stripe payment is voided and a paid one refunded (refund), the customer gets order_cancelled (notifyCustomer); a second cancel answers the cancelled order. Owner or admin",
      tags: ['orders'],
      validate: { params: idParams('orderId'), payload: cancelPayload },
      response: { status: { 200: orderResponse } },
      handler: (request) => {
        const tenant = tenantOf(request);
        return cancelOrder(request.server.app.ctx, tenant.storeId, request.params.orderId as string, request.payload as CancelInput, userActor(tenant.userId));
      }
    }
  })
);
