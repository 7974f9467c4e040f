import Joi from 'joi';
import { resetPassword } from '../../services/password-reset.js';
import { publicRoute } from '../route-helpers.js';
import { messageResponse } from './schemas.js';

export const postResetPassword = publicRoute({
  method: 'POST',
  path: '/auth/reset-password',
  options: {
    description: 'Set a new password with a reset token; earlier access tokens stop working',
    tags: ['auth'],
    response: { status: { 200: messageResponse } },
    validate: { payload: Joi.object({ token: Joi.string().trim().min(1).max(200).required(), password: Joi.string().min(8).max(128).required() }) },
    handler: async (request) => {
      const { token, password } = request.payload as { token: string; password: string };
      return resetPassword(request.server.app.ctx, token, password);
    }
  }
});
