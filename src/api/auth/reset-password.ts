import Joi from 'joi';
import { resetPassword } from '../../services/password-reset.js';
import { invalidResetLinkPage, passwordResetDonePage, resetPasswordFormPage } from '../account-pages/forms.js';
import { failValidationAsPage, failureMessages, pageForFailure, postedField } from '../public/html-failures.js';
import { htmlPage, wantsHtml } from '../public/html-page.js';
import { publicRoute } from '../route-helpers.js';
import { messageResponse } from './schemas.js';

export const resetPasswordPayload = Joi.object({
  token: Joi.string().trim().min(1).max(200).required(),
  password: Joi.string().min(8).max(128).required(),
  passwordConfirmation: Joi.string()
    .valid(Joi.ref('password'))
    .messages({ 'any.only': 'the two passwords differ' })
    .description('optional; when sent, must equal password (the reset page sends it)')
});

export const postResetPassword = publicRoute({
  method: 'POST',
  path: '/auth/reset-password',
  options: {
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
    handler: async (request, h) => {
      const { token, password } = request.payload as { token: string; password: string };
      if (!wantsHtml(request)) return resetPassword(request.server.app.ctx, token, password);
      try {
        return htmlPage(h, passwordResetDonePage((await resetPassword(request.server.app.ctx, token, password)).message));
      } catch (error) {
        return pageForFailure(h, error, (failure) => (failure.code === 'invalid_token' ? invalidResetLinkPage() : resetPasswordFormPage(token, failureMessages(failure))));
      }
    }
  }
});
