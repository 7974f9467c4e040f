import { cancelOrder } from '../../use-cases/cancel-order.js';
import { type CancelInput, createFulfillment, type FulfillmentInput, getOrder, listOrders, markOrderPaid, type OrderListFilters, userActor } from '../../services/orders/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS, ANY_MEMBER } from '../../platform/roles.js';
import { idempotent } from '../idempotency.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { cancelPayload, fulfillmentCreatedResponse, fulfillmentPayload, listOrdersQuery, markPaidPayload, orderListResponse, orderResponse } from './schemas.js';

type OrderParams = { orderId: string };

export const listOrdersRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/orders',
  options: {
    description:
      'Orders, newest first (placed, then id, descending) unless sort says otherwise (keyset pages); status = an order status (open, completed, cancelled); paymentStatus (pending, paid, refunded, failed) ' +
      'and fulfillmentStatus (unfulfilled, partially_fulfilled, fulfilled) filter those columns; filters combine; q = order number or email',
    tags: ['orders'],
    validate: { query: listOrdersQuery },
    response: { status: { 200: orderListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string; q?: string } & Omit<OrderListFilters, 'q'>>(async ({ ctx, storeId, query }) => {
      const { limit, cursor, q, ...filters } = query;
      const result = await listOrders(ctx, storeId, { ...filters, q: q || undefined }, { limit, cursor });
      return withMeta({ orders: result.orders }, paginationMeta(limit, result.nextCursor));
    })
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
    handler: adminHandler<OrderParams>(({ ctx, storeId, params }) => getOrder(ctx, storeId, params.orderId))
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
      handler: adminHandler<OrderParams, FulfillmentInput | null>(async ({ ctx, storeId, actor, params, payload, h }) => {
        const body = payload ?? {};
        const input: FulfillmentInput = {
          ...body,
          trackingCompany: body.trackingCompany || null,
          trackingNumber: body.trackingNumber || null,
          trackingUrl: body.trackingUrl || null
        };
        const result = await createFulfillment(ctx, storeId, params.orderId, input, userActor(actor.userId));
        return h.response(result).code(201);
      })
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
      handler: adminHandler<OrderParams, { reference?: string; note?: string } | null>(({ ctx, storeId, actor, params, payload }) => {
        const body = payload ?? {};
        return markOrderPaid(ctx, storeId, params.orderId, { reference: body.reference || undefined, note: body.note || undefined }, userActor(actor.userId));
      })
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
        "Cancel an order while nothing of it is fulfilled (409 order_fulfilled: use a return): restock puts back its units no refund already put back (items[].restockedQuantity), its discount's use is given back, an authorised Stripe payment is voided and a paid one refunded (refund; 409 payment_disputed while a chargeback of it is open: cancel with refund: false), the customer gets order_cancelled (notifyCustomer); a second cancel answers the cancelled order. Owner or admin",
      tags: ['orders'],
      validate: { params: idParams('orderId'), payload: cancelPayload },
      response: { status: { 200: orderResponse } },
      handler: adminHandler<OrderParams, CancelInput>(({ ctx, storeId, actor, params, payload }) => cancelOrder(ctx, storeId, params.orderId, payload, userActor(actor.userId)))
    }
  })
);
