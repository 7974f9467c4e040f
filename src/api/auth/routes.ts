import Joi from 'joi';
import { currentUser, forgotPassword, limitAuthAttempt, login, resetPassword, signup } from '../../services/accounts/index.js';
import { email, text } from '../schemas.js';
import { publicRoute, userRoute } from '../route-helpers.js';
import { signupResponse, sessionResponse, meResponse, messageResponse, resetPasswordPayload } from './schemas.js';
import { invalidResetLinkPage, passwordResetDonePage, resetPasswordFormPage } from '../account-pages/forms.js';
import { failValidationAsPage, failureMessages, pageForFailure, postedField } from '../public/html-failures.js';
import { htmlPage, wantsHtml } from '../public/html-page.js';
import { clientIp } from '../client-ip.js';
import { publicHandler, userHandler } from '../handler.js';

export const postSignup = publicRoute({
  method: 'POST',
  path: '/auth/signup',
  options: {
    plugins: { openapi: { errors: [409, 429] } },
    description: 'Create an operator account and its first store',
    tags: ['auth'],
    response: { status: { 201: signupResponse } },
    validate: {
      payload: Joi.object({
        firstName: text(100).min(1).required(),
        lastName: text(100).min(1).required(),
        email: email().required(),
        password: Joi.string().min(8).max(128).required(),
        storeName: text(120).min(1).required(),
        storeSlug: Joi.string().trim().lowercase().min(3).max(63).pattern(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'slug').required()
      })
    },
    handler: publicHandler<{}, Parameters<typeof signup>[1]>(async ({ ctx, payload, request, h }) => {
      await limitAuthAttempt(ctx, 'signup', clientIp(request), payload.email);
      return h.response(await signup(ctx, payload)).code(201);
    })
  }
});

export const postLogin = publicRoute({
  method: 'POST',
  path: '/auth/login',
  options: {
    plugins: { openapi: { errors: [401, 429] } },
    description: 'Sign in with email and password',
    tags: ['auth'],
    response: { status: { 200: sessionResponse } },
    validate: { payload: Joi.object({ email: email().required(), password: Joi.string().min(1).max(128).required() }) },
    handler: publicHandler<{}, { email: string; password: string }>(async ({ ctx, payload, request }) => {
      const { email: address, password } = payload;
      await limitAuthAttempt(ctx, 'login', clientIp(request), address);
      const userAgent = request.headers['user-agent'];
      return login(ctx, address, password, { requestId: request.info.id, ip: clientIp(request), userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 500) : null });
    })
  }
});

export const getMe = userRoute({
  method: 'GET',
  path: '/auth/me',
  options: {
    description: 'The signed-in user and their store memberships',
    tags: ['auth'],
    response: { status: { 200: meResponse } },
    handler: userHandler(({ ctx, userId }) => currentUser(ctx, userId))
  }
});

export const postForgotPassword = publicRoute({
  method: 'POST',
  path: '/auth/forgot-password',
  options: {
    plugins: { openapi: { errors: [429] } },
    description: 'Email a single-use password reset link (always answers 200)',
    tags: ['auth'],
    response: { status: { 200: messageResponse } },
    validate: { payload: Joi.object({ email: email().required() }) },
    handler: publicHandler<{}, { email: string }>(async ({ ctx, payload, request }) => {
      await limitAuthAttempt(ctx, 'forgot', clientIp(request), payload.email);
      return forgotPassword(ctx, payload.email);
    })
  }
});

export const postResetPassword = publicRoute({
  method: 'POST',
  path: '/auth/reset-password',
  options: {
    // A browser (Accept: text/html) gets a page, success or failure.
    plugins: { openapi: { html: true } },
    description:
      'Set a new password with a reset token; earlier access tokens stop working. The reset page posts it as a form: ' +
      'a browser (Accept: text/html) gets a page back instead of JSON.',
    tags: ['auth'],
    payload: { allow: ['application/json', 'application/x-www-form-urlencoded'] },
    response: { status: { 200: messageResponse } },
    validate: {
      payload: resetPasswordPayload,
      // The reset page again, with what to fix.
      failAction: failValidationAsPage((request, messages) => {
        const token = postedField(request, 'token')?.trim();
        return token ? resetPasswordFormPage(token, messages) : invalidResetLinkPage();
      })
    },
    handler: publicHandler<{}, { token: string; password: string }>(async ({ ctx, payload, request, h }) => {
      const { token, password } = payload;
      if (!wantsHtml(request)) return resetPassword(ctx, token, password);
      try {
        return htmlPage(h, passwordResetDonePage((await resetPassword(ctx, token, password)).message));
      } catch (error) {
        return pageForFailure(h, error, (failure) => (failure.code === 'invalid_token' ? invalidResetLinkPage() : resetPasswordFormPage(token, failureMessages(failure))));
      }
    })
  }
});
