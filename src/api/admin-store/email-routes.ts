import Joi from 'joi';
import { sendTestEmail, sendTestTemplateEmail, verifyEmailProvider } from '../../services/email/index.js';
import { ADMINS } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { email } from '../schemas.js';
import { emailVerifyResponse, testEmailResponse, testTemplateEmailResponse } from './schemas.js';

export const verifyEmail = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/store/email/verify',
  options: {
    description: "Check the store's email provider with a real SMTP handshake; 409 secret_unreadable when the stored SMTP password no longer decrypts",
    tags: ['email'],
    plugins: { openapi: { errors: [409] } },
    response: { status: { 200: emailVerifyResponse } },
    handler: adminHandler(({ ctx, storeId }) => verifyEmailProvider(ctx, storeId))
  }
});

export const testEmail = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/email/test',
  options: {
    plugins: { openapi: { errors: [409, 502] } },
    description: 'Send a test email through the store mailer; 502 with the SMTP error on failure',
    tags: ['email'],
    validate: { payload: Joi.object({ toEmail: email().required() }) },
    response: { status: { 200: testEmailResponse } },
    handler: adminHandler<{}, { toEmail: string }>(({ ctx, storeId, payload }) => sendTestEmail(ctx, storeId, payload.toEmail))
  }
});

export const testTemplateEmail = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/store/email/test-template',
  options: {
    plugins: { openapi: { errors: [409, 502] } },
    description: 'Render a template with sample data and send it; 422 template_invalid when the stored template cannot be rendered (a refused tag or a limit)',
    tags: ['email'],
    validate: { payload: Joi.object({ toEmail: email().required(), templateKey: Joi.string().trim().min(1).max(100).required() }) },
    response: { status: { 200: testTemplateEmailResponse } },
    handler: adminHandler<{}, { toEmail: string; templateKey: string }>(({ ctx, storeId, payload }) => sendTestTemplateEmail(ctx, storeId, payload.toEmail, payload.templateKey))
  }
});
