import { randomUUID } from 'node:crypto';
import type { Server } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../src/context.js';
import { sendEmailJob } from '../../src/jobs/send-email.js';
import { storefrontOf } from '../../src/api/plugins/auth.js';
import { storefrontRoute } from '../../src/api/route-helpers.js';

/**
 * The baseline the outbox is measured against: newsletter subscribe as it was before the outbox
 * (the same upsert, an email_log row, then a direct BullMQ add after commit), behind the same
 * storefront auth and validation. Bench only: it loses the job when Redis is down.
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
          const result = await ctx.db.raw(
            `insert into customers as c (store_id, email, source, email_marketing, email_marketing_updated_at, email_marketing_source)
             values (?, ?, 'newsletter', 'subscribed', now(), 'newsletter')
             on conflict (store_id, lower(email)) do update set email_marketing = 'subscribed', updated_at = now()
             where c.email_marketing <> 'subscribed' returning id`,
            [storeId, email.toLowerCase()]
          );
          if (result.rows[0]) {
            const emailLogId = randomUUID();
            await ctx.db('emailLog').insert({ id: emailLogId, storeId, toEmail: email, templateKey: 'newsletter_welcome', status: 'queued' });
            await ctx.queues
              .get('email')
              .add(sendEmailJob.name, { emailLogId, storeId, to: email, templateKey: 'newsletter_welcome', data: {} }, { jobId: emailLogId, ...sendEmailJob.options });
          }
          return { subscribed: true };
        }
      }
    })
  );
}
