import { addOrderNote, deleteOrderNote, listTimeline, type NoteInput, updateOrderNote } from '../../services/orders/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ANY_MEMBER } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { notePatchPayload, notePayload, orderEventResponse, timelineQuery, timelineResponse } from './schemas.js';

type OrderParams = { orderId: string };
type NoteParams = OrderParams & { noteId: string };

export const timelineRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/orders/{orderId}/timeline',
  options: {
    description:
      "The order's timeline, newest first (keyset pages): placed, paid, fulfilled, email sent, refunded, cancelled, return requested/received, notes; each with its actor (user, system, webhook) and time",
    tags: ['orders'],
    validate: { params: idParams('orderId'), query: timelineQuery },
    response: { status: { 200: timelineResponse } },
    handler: adminHandler<OrderParams, undefined, { limit: number; cursor?: string }>(async ({ ctx, storeId, params, query }) => {
      const { limit, cursor } = query;
      const result = await listTimeline(ctx, storeId, params.orderId, { limit, cursor });
      return withMeta({ events: result.events }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const addNoteRoute = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/orders/{orderId}/notes',
  options: {
    description: 'A note on the timeline; isPublic shows it on the public tracking page',
    tags: ['orders'],
    validate: { params: idParams('orderId'), payload: notePayload },
    response: { status: { 201: orderEventResponse } },
    handler: adminHandler<OrderParams, NoteInput>(async ({ ctx, storeId, actor, params, payload, h }) =>
      h.response(await addOrderNote(ctx, storeId, params.orderId, actor.userId, payload)).code(201)
    )
  }
});

export const updateNoteRoute = adminRoute(ANY_MEMBER, {
  method: 'PATCH',
  path: '/admin/orders/{orderId}/notes/{noteId}',
  options: {
    plugins: { openapi: { errors: [403] } },
    description: 'Edit your own note (403 for a note of another member)',
    tags: ['orders'],
    validate: { params: idParams('orderId', 'noteId'), payload: notePatchPayload },
    response: { status: { 200: orderEventResponse } },
    handler: adminHandler<NoteParams, Partial<NoteInput>>(({ ctx, storeId, actor, params, payload }) =>
      updateOrderNote(ctx, storeId, params.orderId, params.noteId, actor.userId, payload)
    )
  }
});

export const deleteNoteRoute = adminRoute(ANY_MEMBER, {
  method: 'DELETE',
  path: '/admin/orders/{orderId}/notes/{noteId}',
  options: {
    plugins: { openapi: { errors: [403], success: { status: 204, description: 'Deleted', content: null } } },
    description: 'Delete your own note (403 for a note of another member): 204',
    tags: ['orders'],
    validate: { params: idParams('orderId', 'noteId') },
    handler: adminHandler<NoteParams>(async ({ ctx, storeId, actor, params, h }) => {
      await deleteOrderNote(ctx, storeId, params.orderId, params.noteId, actor.userId);
      return h.response().code(204);
    })
  }
});
