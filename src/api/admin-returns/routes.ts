import { forbidden } from '../../errors.js';
import { cancelReturn, closeReturn, getReturn, requestReturn, userActor } from '../../services/orders/index.js';
import { receiveReturn } from '../../use-cases/receive-return.js';
import { ADMINS, ANY_MEMBER } from '../../platform/roles.js';
import { idempotent } from '../idempotency.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { receivedReturnResponse, receivePayload, returnPayload, returnResponse } from './schemas.js';

const tags = ['orders'];
type ReturnParams = { returnId: string };
type ReturnItem = { orderItemId: string; quantity: number };
type ReceiveBody = { items?: ReturnItem[]; restock?: boolean; refund?: boolean; notifyCustomer?: boolean };

export const requestReturnRoute = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/orders/{orderId}/returns',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'A return of fulfilled items (requested); 409 for more than was fulfilled and not already on a return',
    tags,
    validate: { params: idParams('orderId'), payload: returnPayload },
    response: { status: { 201: returnResponse } },
    handler: adminHandler<{ orderId: string }, { items: ReturnItem[]; reason: string }>(async ({ ctx, storeId, actor, params, payload, h }) =>
      h.response(await requestReturn(ctx, storeId, params.orderId, payload, userActor(actor.userId))).code(201)
    )
  }
});

export const getReturnRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/returns/{returnId}',
  options: {
    description: 'A return',
    tags,
    validate: { params: idParams('returnId') },
    response: { status: { 200: returnResponse } },
    handler: adminHandler<ReturnParams>(({ ctx, storeId, params }) => getReturn(ctx, storeId, params.returnId))
  }
});

export const receiveReturnRoute = idempotent(
  adminRoute(ANY_MEMBER, {
    method: 'POST',
    path: '/admin/returns/{returnId}/receive',
    options: {
      plugins: { openapi: { errors: [403, 409, 502] } },
      description:
        'The items came back (requested → received): restock puts them back on the shelf (only units no refund already put back: see restockedQuantity on the order items); refund (owner or admin: 403 for staff) refunds them in the same step and closes the return; 409 unless requested',
      tags,
      validate: { params: idParams('returnId'), payload: receivePayload },
      response: { status: { 200: receivedReturnResponse } },
      handler: adminHandler<ReturnParams, ReceiveBody | null>(({ ctx, storeId, actor, params, payload }) => {
        const body = payload ?? {};
        if (body.refund && !ADMINS.includes(actor.role)) throw forbidden('Refunds need the owner or an admin');
        return receiveReturn(ctx, storeId, params.returnId, body, userActor(actor.userId));
      })
    }
  })
);

export const closeReturnRoute = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/returns/{returnId}/close',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'A received return is done with (received → closed); 409 otherwise',
    tags,
    validate: { params: idParams('returnId') },
    response: { status: { 200: returnResponse } },
    handler: adminHandler<ReturnParams>(({ ctx, storeId, actor, params }) => closeReturn(ctx, storeId, params.returnId, userActor(actor.userId)))
  }
});

export const cancelReturnRoute = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/returns/{returnId}/cancel',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'A requested return that will not come back (requested → cancelled); 409 otherwise',
    tags,
    validate: { params: idParams('returnId') },
    response: { status: { 200: returnResponse } },
    handler: adminHandler<ReturnParams>(({ ctx, storeId, actor, params }) => cancelReturn(ctx, storeId, params.returnId, userActor(actor.userId)))
  }
});
