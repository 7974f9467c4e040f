import type { ServerRoute } from '@hapi/hapi';
import { addNoteRoute, deleteNoteRoute, timelineRoute, updateNoteRoute } from './routes.js';

export const adminOrderTimelineRoutes: ServerRoute[] = [timelineRoute, addNoteRoute, updateNoteRoute, deleteNoteRoute];
