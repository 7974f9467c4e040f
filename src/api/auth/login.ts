import Joi from 'joi';
import { limitAuthAttempt, login } from '../../services/auth.js';
import { email } from '../schemas.js';
import { publicRoute } from '../route-helpers.js';
import { sessionResponse } from './schemas.js';
import { clientIp } from '../client-ip.js';

export const postLogin = publicRoute({
  method: 'POST',
  path: '/auth/login',
  options: {
    plugins: { openapi: { errors: [401, 429] } },
    description: 'Sign in with email and password',
    tags: ['auth'],
    response: { status: { 200: sessionResponse } },
    validate: { payload: Joi.object({ email: email().required(), password: Joi.string().min(1).max(128).required() }) },
    handler: async (request) => {
      const ctx = request.server.app.ctx;
      const { email: address, password } = request.payload as { email: string; password: string };
      await limitAuthAttempt(ctx, 'login', clientIp(request), address);
      return login(ctx, address, password);
    }
  }
});
