import { refundOrder } from '../../use-cases/refund-order.js';
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
        "Refund items (their share of what was paid, optionally restocked: only units no cancel or return already put back go back, the refund succeeds either way and items[].restockedQuantity says how many), shipping or an amount; ?dryRun=true answers 200 { preview } with the amounts and writes nothing. Never more than is left of what was paid (409 refund_exceeds_payment; 409 order_not_refundable unless paid). A Stripe order is refunded through Stripe on the store's account (application fee reversed in proportion; 502 if Stripe fails); a manual one is recorded. Emails order_refunded unless notifyCustomer is false. Owner or admin",
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
