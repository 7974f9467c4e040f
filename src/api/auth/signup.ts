import Joi from 'joi';
import { limitAuthAttempt, signup } from '../../services/auth.js';
import { email, text } from '../schemas.js';
import { publicRoute } from '../route-helpers.js';
import { signupResponse } from './schemas.js';
import { clientIp } from '../client-ip.js';

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
    handler: async (request, h) => {
      const ctx = request.server.app.ctx;
      const input = request.payload as Parameters<typeof signup>[1];
      await limitAuthAttempt(ctx, 'signup', clientIp(request), input.email);
      return h.response(await signup(ctx, input)).code(201);
    }
  }
});
