import type { ServerRoute } from '@hapi/hapi';
import { testEmail, testTemplateEmail, verifyEmail } from './email-routes.js';
import { getStore, patchStore } from './routes.js';
import { uploadMedia } from './media-routes.js';
import { createToken, listTokens, revokeToken, rotateToken } from './storefront-token-routes.js';

export const adminStoreRoutes: ServerRoute[] = [
  getStore,
  patchStore,
  listTokens,
  createToken,
  rotateToken,
  revokeToken,
  verifyEmail,
  testEmail,
  testTemplateEmail,
  uploadMedia
];
