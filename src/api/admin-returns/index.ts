import type { ServerRoute } from '@hapi/hapi';
import { cancelReturnRoute, closeReturnRoute, getReturnRoute, receiveReturnRoute, requestReturnRoute } from './routes.js';

export const adminReturnRoutes: ServerRoute[] = [requestReturnRoute, getReturnRoute, receiveReturnRoute, closeReturnRoute, cancelReturnRoute];
