import { addOrderNote, deleteOrderNote, listTimeline, type NoteInput, updateOrderNote } from '../../services/orders/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ANY_MEMBER } from '../../platform/roles.js';
import { tenantOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { notePatchPayload, notePayload, orderEventResponse, timelineQuery, timelineResponse } from './schemas.js';

export const timelineRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/orders/{orderId}/timeline',
  options: {
    description:
      "The order's timeline, newest first (keyset pages): placed, paid, fulfilled, email sent, refunded, cancelled, return requested/received, notes; each with its actor (user, system, webhook) and time",
    tags: ['orders'],
    validate: { params: idParams('orderId'), query: timelineQuery },
    response: { status: { 200: timelineResponse } },
    handler: async (request) => {
      const { limit, cursor } = request.query as { limit: number; cursor?: string };
      const result = await listTimeline(request.server.app.ctx, tenantOf(request).storeId, request.params.orderId as string, { limit, cursor });
      return withMeta({ events: result.events }, paginationMeta(limit, result.nextCursor));
    }
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
    handler: async (request, h) => {
      const tenant = tenantOf(request);
      return h.response(await addOrderNote(request.server.app.ctx, tenant.storeId, request.params.orderId as string, tenant.userId, request.payload as NoteInput)).code(201);
    }
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
    handler: (request) => {
      const tenant = tenantOf(request);
      return updateOrderNote(request.server.app.ctx, tenant.storeId, request.params.orderId as string, request.params.noteId as string, tenant.userId, request.payload as Partial<NoteInput>);
    }
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
    handler: async (request, h) => {
      const tenant = tenantOf(request);
      await deleteOrderNote(request.server.app.ctx, tenant.storeId, request.params.orderId as string, request.params.noteId as string, tenant.userId);
      return h.response().code(204);
    }
  }
});
