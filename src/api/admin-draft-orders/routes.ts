import { createDraftOrder, deleteDraftOrder, getDraftOrder, listDraftOrders, updateDraftOrder, type DraftInput, type DraftStatus } from '../../services/draft-orders/index.js';
import { userActor } from '../../services/orders/index.js';
import { completeDraftOrder, type DraftPaymentChoice } from '../../use-cases/complete-draft-order.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ANY_MEMBER } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { idempotent } from '../idempotency.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import {
  completeDraftPayload,
  completeDraftResponse,
  createDraftPayload,
  draftDeletedResponse,
  draftOrderListResponse,
  draftOrderResponse,
  listDraftsQuery,
  updateDraftPayload
} from './schemas.js';

const clean = (input: DraftInput): DraftInput => ({ ...input, ...(input.note === '' ? { note: null } : {}) });

export const createDraftOrderRoute = idempotent(adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/draft-orders',
  options: {
    plugins: { openapi: { errors: [409] } },
    description:
      'A draft order put together by hand (phone, email, a fair): an email or a customer, lines by variant (priced now) or custom (title and price), a shipping rate of the store or custom shipping, a discount code or a manual discount, a note and tags. Totals are computed as a checkout computes them; no stock is held until it is completed. Any member',
    tags: ['draft-orders'],
    validate: { payload: createDraftPayload },
    response: { status: { 201: draftOrderResponse } },
    handler: adminHandler<Record<string, string>, DraftInput>(async ({ ctx, storeId, actor, payload, h }) =>
      h.response(await createDraftOrder(ctx, storeId, clean(payload), actor.userId)).code(201)
    )
  }
}));

export const listDraftOrdersRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/draft-orders',
  options: {
    description: 'Draft orders, newest first (keyset pages); status = open, invoiced or completed',
    tags: ['draft-orders'],
    validate: { query: listDraftsQuery },
    response: { status: { 200: draftOrderListResponse } },
    handler: adminHandler<Record<string, string>, undefined, { limit: number; cursor?: string; status?: DraftStatus }>(async ({ ctx, storeId, query }) => {
      const result = await listDraftOrders(ctx, storeId, { status: query.status }, { limit: query.limit, cursor: query.cursor });
      return withMeta({ draftOrders: result.draftOrders }, paginationMeta(query.limit, result.nextCursor));
    })
  }
});

export const getDraftOrderRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/draft-orders/{draftOrderId}',
  options: {
    description: 'A draft order with its lines and totals',
    tags: ['draft-orders'],
    validate: { params: idParams('draftOrderId') },
    response: { status: { 200: draftOrderResponse } },
    handler: adminHandler<{ draftOrderId: string }>(({ ctx, storeId, params }) => getDraftOrder(ctx, storeId, params.draftOrderId))
  }
});

export const updateDraftOrderRoute = adminRoute(ANY_MEMBER, {
  method: 'PATCH',
  path: '/admin/draft-orders/{draftOrderId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Change an open draft (given fields replace, lines replace all lines; totals recomputed); 409 once it is invoiced or completed',
    tags: ['draft-orders'],
    validate: { params: idParams('draftOrderId'), payload: updateDraftPayload },
    response: { status: { 200: draftOrderResponse } },
    handler: adminHandler<{ draftOrderId: string }, DraftInput>(({ ctx, storeId, params, payload }) => updateDraftOrder(ctx, storeId, params.draftOrderId, clean(payload)))
  }
});

export const deleteDraftOrderRoute = adminRoute(ANY_MEMBER, {
  method: 'DELETE',
  path: '/admin/draft-orders/{draftOrderId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Delete an open or invoiced draft (an invoiced one gives its held stock back and its link stops working); 409 once completed',
    tags: ['draft-orders'],
    validate: { params: idParams('draftOrderId') },
    response: { status: { 200: draftDeletedResponse } },
    handler: adminHandler<{ draftOrderId: string }>(async ({ ctx, storeId, actor, params }) => {
      await deleteDraftOrder(ctx, storeId, params.draftOrderId, actor.userId);
      return { deleted: true };
    })
  }
});

export const completeDraftOrderRoute = idempotent(
  adminRoute(ANY_MEMBER, {
    method: 'POST',
    path: '/admin/draft-orders/{draftOrderId}/complete',
    options: {
      plugins: { openapi: { errors: [409] } },
      description:
        "Complete a draft: its stock is held now (409 insufficient_inventory naming a line that lacks it). payment mark_paid (a manual payment collected) or pending makes the order at once: 200 { order }; invoice emails the customer a link to /public/invoices/{token} (Stripe) whose payment makes the order: 200 { invoice: { url } }. 409 unless the draft is open. Any member",
      tags: ['draft-orders'],
      validate: { params: idParams('draftOrderId'), payload: completeDraftPayload },
      response: { status: { 200: completeDraftResponse } },
      handler: adminHandler<{ draftOrderId: string }, { payment: DraftPaymentChoice }>(({ ctx, storeId, actor, params, payload }) =>
        completeDraftOrder(ctx, storeId, params.draftOrderId, payload.payment, userActor(actor.userId))
      )
    }
  })
);
