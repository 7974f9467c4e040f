import Joi from 'joi';
import { describeUnsubscribe, unsubscribeByToken } from '../../services/customers/index.js';
import { validationFailed } from '../../errors.js';
import { publicHandler } from '../handler.js';
import { publicRoute } from '../route-helpers.js';
import { clientIp } from '../client-ip.js';
import { htmlPage, wantsHtml } from './html-page.js';
import { emailLinkSubjectResponse, unsubscribedResponse } from './schemas.js';

const token = Joi.string().trim().max(200);

/** The one-click form (or JSON `{ token }`), a text body, or none. */
type UnsubscribeBody = { token?: string; 'List-Unsubscribe'?: 'One-Click' } | string | null;

/**
 * One POST serves both contract routes: `?token=T` (the RFC 8058 one-click target: body
 * `List-Unsubscribe=One-Click` form-encoded or multipart, or no body) and a JSON body `{ token }`.
 */
export const unsubscribeRoute = publicRoute({
  method: 'POST',
  path: '/public/unsubscribe',
  options: {
    // A browser (Accept: text/html) gets a page, success or failure.
    plugins: { openapi: { html: true } },
    description:
      'Unsubscribe from marketing email with ?token= (RFC 8058 one-click: body List-Unsubscribe=One-Click, or empty) or JSON { token }: ' +
      '200 { unsubscribed: true, email } every time; 422 invalid_token for a bad token',
    tags: ['newsletter'],
    payload: {
      parse: true,
      output: 'data',
      maxBytes: 16 * 1024,
      multipart: { output: 'data' },
      allow: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'],
      failAction: 'error'
    },
    validate: {
      query: Joi.object({ token }),
      payload: Joi.alternatives(
        Joi.object({ token, 'List-Unsubscribe': Joi.string().valid('One-Click') }),
        Joi.string().allow(''),
        Joi.any().valid(null)
      )
    },
    // JSON callers; a browser (Accept: text/html) gets an HTML page instead.
    response: { status: { 200: unsubscribedResponse } },
    handler: publicHandler<{}, UnsubscribeBody, { token?: string }>(async ({ ctx, payload, query, request, h }) => {
      const body = payload && typeof payload === 'object' ? payload : {};
      const value = query.token ?? body.token;
      if (!value) throw validationFailed([{ path: 'token', message: 'token is required (query or body)' }]);
      if (!wantsHtml(request)) return unsubscribeByToken(ctx, value, clientIp(request));
      // The button of the GET page: a browser gets a page back, not JSON.
      try {
        const result = await unsubscribeByToken(ctx, value, clientIp(request));
        return htmlPage(h, { title: 'You are unsubscribed', paragraphs: [`${result.email} will get no more marketing email from this store.`] });
      } catch (error) {
        if ((error as { code?: string }).code !== 'invalid_token') throw error;
        return htmlPage(h, { title: 'This link is not valid', paragraphs: ['The unsubscribe link is not valid. Use the link in the latest email you received.'] }, 422);
      }
    })
  }
});

export const describeUnsubscribeRoute = publicRoute({
  method: 'GET',
  path: '/public/unsubscribe',
  options: {
    // A browser (Accept: text/html) gets a page, success or failure.
    plugins: { openapi: { html: true } },
    description:
      'What an unsubscribe link points at, for a confirmation page; changes nothing (mail scanners follow links). ' +
      'A browser (Accept: text/html) gets a small page with a button that POSTs.',
    tags: ['newsletter'],
    validate: { query: Joi.object({ token: token.required() }) },
    response: { status: { 200: emailLinkSubjectResponse } },
    handler: publicHandler<{}, undefined, { token: string }>(async ({ ctx, query, request, h }) => {
      const value = query.token;
      if (!wantsHtml(request)) return describeUnsubscribe(ctx, value);
      try {
        const about = await describeUnsubscribe(ctx, value);
        if (about.emailMarketing === 'unsubscribed') {
          return htmlPage(h, { title: 'You are unsubscribed', paragraphs: [`${about.email} gets no marketing email from ${about.store.name}.`] });
        }
        return htmlPage(h, {
          title: `Unsubscribe from ${about.store.name}`,
          paragraphs: [`Stop marketing email from ${about.store.name} to ${about.email}?`],
          form: { action: `/api/v1/public/unsubscribe?token=${encodeURIComponent(value)}`, button: 'Unsubscribe' }
        });
      } catch (error) {
        if ((error as { code?: string }).code !== 'invalid_token') throw error;
        return htmlPage(h, { title: 'This link is not valid', paragraphs: ['The unsubscribe link is not valid. Use the link in the latest email you received.'] }, 422);
      }
    })
  }
});
