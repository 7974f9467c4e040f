import Joi from 'joi';
import { limitNewsletterSubscribe, subscribeToNewsletter, type SubscribeInput } from '../../services/customers/index.js';
import { storefrontHandler } from '../handler.js';
import { storefrontRoute } from '../route-helpers.js';
import { email, text } from '../schemas.js';
import { clientIp } from '../client-ip.js';
import { newsletterSubscribeResponse } from './schemas.js';

export const newsletterSubscribeRoute = storefrontRoute({
  method: 'POST',
  path: '/storefront/newsletter/subscribe',
  options: {
    description:
      'Subscribe an email to the store newsletter: 200 { subscribed, email, emailMarketing } whether new or already subscribed ' +
      '(idempotent; the newsletter_welcome email goes out once, when the customer becomes subscribed). An address that unsubscribed, or any new ' +
      'address when the store has newsletterDoubleOptIn (on by default for new stores), gets 200 { status: "pending_confirmation" } and a confirm link by email instead. ' +
      '429 rate_limited past RATE_LIMIT_NEWSLETTER_PER_IP calls a minute from one client, or RATE_LIMIT_NEWSLETTER_PER_EMAIL an hour for one address.',
    tags: ['newsletter'],
    validate: {
      payload: Joi.object({ email: email().required(), firstName: text(255).allow(''), lastName: text(255).allow('') })
    },
    response: { status: { 200: newsletterSubscribeResponse } },
    handler: storefrontHandler<{}, SubscribeInput>(async ({ ctx, storeId, payload: input, request }) => {
      const ip = clientIp(request);
      await limitNewsletterSubscribe(ctx, storeId, ip, input.email);
      return subscribeToNewsletter(ctx, storeId, { email: input.email, firstName: input.firstName || undefined, lastName: input.lastName || undefined }, ip);
    })
  }
});
