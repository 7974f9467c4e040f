import { randomUUID } from 'node:crypto';
import type { Server } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../src/context.js';
import { sendEmailJob } from '../../src/jobs/send-email.js';
import { storefrontOf } from '../../src/api/plugins/auth.js';
import { storefrontRoute } from '../../src/api/route-helpers.js';
import type { CustomerRow } from '../../src/services/customers/customers.js';
import { limitNewsletterSubscribe } from '../../src/services/customers/newsletter.js';
import { listUnsubscribeHeaders, unsubscribeUrlFor } from '../../src/services/customers/unsubscribe.js';
import { sealEmailMessage } from '../../src/services/email/sealed-message.js';

/**
 * The baseline the outbox is measured against: newsletter subscribe as it was before the outbox
 * (the double opt-in reads, the upsert, the store's name, an email_log row, then a direct BullMQ add
 * after commit), behind the same storefront auth, validation and rate limits as the real route.
 * Bench only: it loses the job when Redis is down.
 */
export function registerDirectSubscribe(server: Server, ctx: AppContext): void {
  server.route(
    storefrontRoute({
      method: 'POST',
      path: '/bench/newsletter-direct',
      options: {
        validate: { payload: Joi.object({ email: Joi.string().email().required() }) },
        handler: async (request) => {
          const storeId = storefrontOf(request).storeId;
          const { email } = request.payload as { email: string };
          await limitNewsletterSubscribe(ctx, storeId, request.info.remoteAddress, email);
          // The same double opt-in reads as the real route.
          await Promise.all([
            ctx.db('stores').where({ id: storeId }).first('name', 'newsletterDoubleOptIn'),
            ctx.db('customers').where({ storeId }).whereRaw('lower(email) = ?', [email.toLowerCase()]).first('emailMarketing')
          ]);
          const result = await ctx.db.raw(
            `insert into customers as c (store_id, email, first_name, last_name, source,
                email_marketing, email_marketing_updated_at, email_marketing_source, email_marketing_ip)
             values (?, ?, ?, ?, 'newsletter', 'subscribed', now(), 'newsletter', ?)
             on conflict (store_id, lower(email)) do update
               set email_marketing = 'subscribed', email_marketing_updated_at = now(), email_marketing_source = 'newsletter',
                   email_marketing_ip = excluded.email_marketing_ip, updated_at = now()
               where c.email_marketing <> 'subscribed'
             returning *`,
            [storeId, email.toLowerCase(), null, null, request.info.remoteAddress]
          );
          const customer = (result.rows[0] as CustomerRow | undefined) ?? null;
          if (customer) {
            const store = await ctx.db('stores').where({ id: storeId }).first('name');
            const emailLogId = randomUUID();
            await ctx.db('emailLog').insert({ id: emailLogId, storeId, toEmail: customer.email, templateKey: 'newsletter_welcome', status: 'queued' });
            const payload = {
              emailLogId,
              storeId,
              templateKey: 'newsletter_welcome',
              sealed: sealEmailMessage(ctx, {
                data: { store: { name: store?.name ?? '' }, customer: { email: customer.email }, unsubscribeUrl: unsubscribeUrlFor(ctx, customer) },
                headers: listUnsubscribeHeaders(ctx, customer)
              }),
              marketingCustomerId: customer.id
            };
            await ctx.queues.get('email').add(sendEmailJob.name, payload, { jobId: emailLogId, ...sendEmailJob.options });
          }
          return { subscribed: true };
        }
      }
    })
  );
}
