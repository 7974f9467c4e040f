import Joi from 'joi';
import { applySubscription, confirmNewsletterSubscription, describeNewsletterConfirmation } from '../../services/customers/index.js';
import { clientIp } from '../client-ip.js';
import { publicHandler } from '../handler.js';
import { publicRoute } from '../route-helpers.js';
import { htmlPage, wantsHtml } from './html-page.js';
import { emailLinkSubjectResponse, newsletterConfirmedResponse } from './schemas.js';

const token = Joi.string().trim().max(2000);
const invalidPage = { title: 'This link is not valid', paragraphs: ['The confirmation link is not valid or has expired. Subscribe again to get a new one.'] };
const isInvalidToken = (error: unknown) => (error as { code?: string }).code === 'invalid_token';

export const describeNewsletterConfirmRoute = publicRoute({
  method: 'GET',
  path: '/public/newsletter/confirm',
  options: {
    // A browser (Accept: text/html) gets a page, success or failure.
    plugins: { openapi: { html: true } },
    description:
      'Double opt-in link: describes the pending subscription `{ email, emailMarketing, store }` and changes nothing; ' +
      'a browser (Accept: text/html) gets a page with a button that POSTs. 422 invalid_token for a bad or expired token.',
    tags: ['newsletter'],
    validate: { query: Joi.object({ token: token.required() }) },
    // JSON callers; a browser (Accept: text/html) gets an HTML page instead.
    response: { status: { 200: emailLinkSubjectResponse } },
    handler: publicHandler<{}, undefined, { token: string }>(async ({ ctx, query, request, h }) => {
      const value = query.token;
      if (!wantsHtml(request)) return describeNewsletterConfirmation(ctx, value);
      try {
        const about = await describeNewsletterConfirmation(ctx, value);
        return htmlPage(h, {
          title: `Confirm your subscription to ${about.store.name}`,
          paragraphs: [`Send ${about.store.name}'s newsletter to ${about.email}?`],
          form: { action: `/api/v1/public/newsletter/confirm?token=${encodeURIComponent(value)}`, button: 'Confirm my subscription' }
        });
      } catch (error) {
        if (!isInvalidToken(error)) throw error;
        return htmlPage(h, invalidPage, 422);
      }
    })
  }
});

export const confirmNewsletterRoute = publicRoute({
  method: 'POST',
  path: '/public/newsletter/confirm',
  options: {
    // A browser (Accept: text/html) gets a page, success or failure.
    plugins: { openapi: { html: true } },
    description: 'Confirms a double opt-in subscription (?token= or JSON { token }): 200 { subscribed: true, email, emailMarketing }, idempotent; 422 invalid_token',
    tags: ['newsletter'],
    payload: { parse: true, output: 'data', maxBytes: 16 * 1024, allow: ['application/json', 'application/x-www-form-urlencoded'], failAction: 'error' },
    validate: { query: Joi.object({ token }), payload: Joi.object({ token }).allow(null) },
    response: { status: { 200: newsletterConfirmedResponse } },
    handler: publicHandler<{}, { token?: string } | null, { token?: string }>(async ({ ctx, payload, query, request, h }) => {
      const value = query.token ?? payload?.token;
      const confirm = () =>
        confirmNewsletterSubscription(ctx, value ?? '', clientIp(request), (storeId, input, ip, source) => applySubscription(ctx, storeId, input, ip, source));
      if (!wantsHtml(request)) return confirm();
      try {
        const result = await confirm();
        return htmlPage(h, { title: 'You are subscribed', paragraphs: [`${result.email} will get the newsletter. You can unsubscribe from any of its emails.`] });
      } catch (error) {
        if (!isInvalidToken(error)) throw error;
        return htmlPage(h, invalidPage, 422);
      }
    })
  }
});
