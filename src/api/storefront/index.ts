import type { ServerRoute } from '@hapi/hapi';
import { getStorefrontStoreRoute } from './get-store.js';
import { newsletterSubscribeRoute } from './newsletter.js';

export const storefrontRoutes: ServerRoute[] = [getStorefrontStoreRoute, newsletterSubscribeRoute];
