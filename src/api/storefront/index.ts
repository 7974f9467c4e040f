import type { ServerRoute } from '@hapi/hapi';
import { getStorefrontStoreRoute } from './get-store.js';

export const storefrontRoutes: ServerRoute[] = [getStorefrontStoreRoute];
