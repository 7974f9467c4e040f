import Joi from 'joi';
import { limitAuthAttempt } from '../../services/auth.js';
import { forgotPassword } from '../../services/password-reset.js';
import { email } from '../schemas.js';
import { publicRoute } from '../route-helpers.js';
import { messageResponse } from './schemas.js';
import { clientIp } from '../client-ip.js';

export const postForgotPassword = publicRoute({
  method: 'POST',
  path: '/auth/forgot-password',
  options: {
    plugins: { openapi: { errors: [429] } },
    description: 'Email a single-use password reset link (always answers 200)',
    tags: ['auth'],
    response: { status: { 200: messageResponse } },
    validate: { payload: Joi.object({ email: email().required() }) },
    handler: async (request) => {
      const ctx = request.server.app.ctx;
      const { email: address } = request.payload as { email: string };
      await limitAuthAttempt(ctx, 'forgot', clientIp(request), address);
      return forgotPassword(ctx, address);
    }
  }
});
