import { refundOrder, retryRefund } from '../../use-cases/refund-order.js';
import { previewRefund, userActor } from '../../services/orders/index.js';
import type { RefundInput } from '../../services/orders/index.js';
import { ADMINS } from '../../platform/roles.js';
import { idempotent } from '../idempotency.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { refundCreatedResponse, refundPayload, refundPreviewResponse, refundQuery } from './schemas.js';

export const createRefundRoute = idempotent(
  adminRoute(ADMINS, {
    method: 'POST',
    path: '/admin/orders/{orderId}/refunds',
    options: {
      plugins: { openapi: { errors: [409, 502] } },
      description:
        "Refund items (their share of what was paid, optionally restocked: only units no cancel or return already put back go back, the refund succeeds either way and items[].restockedQuantity says how many), shipping or an amount; ?dryRun=true answers 200 { preview } with the amounts and writes nothing. Never more than is left of what was paid, less what lost disputes took back (409 refund_exceeds_payment; 409 order_not_refundable unless paid; 409 payment_disputed while a dispute of its payment is open). A Stripe order is refunded through Stripe on the store's account (application fee reversed in proportion; 502 if Stripe fails); a manual one is recorded. Emails order_refunded unless notifyCustomer is false. Owner or admin",
      tags: ['orders'],
      validate: { params: idParams('orderId'), query: refundQuery, payload: refundPayload },
      response: { status: { 200: refundPreviewResponse, 201: refundCreatedResponse } },
      handler: adminHandler<{ orderId: string }, RefundInput, { dryRun: boolean }>(async ({ ctx, storeId, actor, params, payload, query, h }) => {
        if (query.dryRun) return previewRefund(ctx, storeId, params.orderId, payload);
        return h.response(await refundOrder(ctx, storeId, params.orderId, payload, userActor(actor.userId))).code(201);
      })
    }
  })
);

export const retryRefundRoute = idempotent(
  adminRoute(ADMINS, {
    method: 'POST',
    path: '/admin/orders/{orderId}/refunds/{refundId}/retry',
    options: {
      plugins: { openapi: { errors: [404, 409, 502] } },
      description:
        "Asks Stripe again for a refund left pending: one that went to several payments whose later part Stripe refused after the earlier ones were paid back (timeline refund_failed, retryable), or one whose Stripe call failed without an answer. Parts already accepted are not asked again; a refused part is asked under a new idempotency key, so concurrent retries refund it once. 200 with the refund (succeeded once every part is) and its order; 409 refund_not_pending for any other refund; Stripe refusing again answers as the refund did (502, or 409 refund_failed) and leaves it pending. Owner or admin",
      tags: ['orders'],
      validate: { params: idParams('orderId', 'refundId') },
      response: { status: { 200: refundCreatedResponse } },
      handler: adminHandler<{ orderId: string; refundId: string }>(async ({ ctx, storeId, actor, params }) =>
        retryRefund(ctx, storeId, params.orderId, params.refundId, userActor(actor.userId))
      )
    }
  })
);
