import type { ServerRoute } from '@hapi/hapi';
import { testEmail, testTemplateEmail, verifyEmail } from './email.js';
import { getStore } from './get-store.js';
import { uploadMedia } from './media.js';
import { createToken, listTokens, revokeToken, rotateToken } from './storefront-tokens.js';
import { patchStore } from './update-store.js';

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
