import { forbidden } from '../../errors.js';
import { cancelReturn, closeReturn, getReturn, receiveReturn, requestReturn } from '../../services/orders/returns.js';
import { userActor } from '../../services/orders/timeline.js';
import { ADMINS, ANY_MEMBER } from '../../services/roles.js';
import { idempotent } from '../idempotency.js';
import { tenantOf } from '../plugins/auth.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { receivedReturnResponse, receivePayload, returnPayload, returnResponse } from './schemas.js';

const tags = ['orders'];

export const requestReturnRoute = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/orders/{orderId}/returns',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'A return of fulfilled items (requested); 409 for more than was fulfilled and not already on a return',
    tags,
    validate: { params: idParams('orderId'), payload: returnPayload },
    response: { status: { 201: returnResponse } },
    handler: async (request, h) => {
      const tenant = tenantOf(request);
      const body = request.payload as { items: Array<{ orderItemId: string; quantity: number }>; reason: string };
      return h.response(await requestReturn(request.server.app.ctx, tenant.storeId, request.params.orderId as string, body, userActor(tenant.userId))).code(201);
    }
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
    handler: (request) => getReturn(request.server.app.ctx, tenantOf(request).storeId, request.params.returnId as string)
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
      handler: (request) => {
        const tenant = tenantOf(request);
        const body = (request.payload ?? {}) as { items?: Array<{ orderItemId: string; quantity: number }>; restock?: boolean; refund?: boolean; notifyCustomer?: boolean };
        if (body.refund && !ADMINS.includes(tenant.role)) throw forbidden('Refunds need the owner or an admin');
        return receiveReturn(request.server.app.ctx, tenant.storeId, request.params.returnId as string, body, userActor(tenant.userId));
      }
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
    handler: (request) => {
      const tenant = tenantOf(request);
      return closeReturn(request.server.app.ctx, tenant.storeId, request.params.returnId as string, userActor(tenant.userId));
    }
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
    handler: (request) => {
      const tenant = tenantOf(request);
      return cancelReturn(request.server.app.ctx, tenant.storeId, request.params.returnId as string, userActor(tenant.userId));
    }
  }
});
