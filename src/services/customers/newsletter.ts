import type { AppContext } from '../../context.js';
import { enqueueEmail } from '../email/index.js';
import { reactInTransaction } from '../../platform/events/domain-events.js';
import { consumeRateLimit } from '../../platform/rate-limit.js';
import type { CustomerRow } from './customers.js';
import { sendNewsletterConfirmation } from './newsletter-confirm.js';
import { listUnsubscribeHeaders, unsubscribeUrlFor } from './unsubscribe.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Transaction } from '../../db/transaction.js';

export interface SubscribeInput {
  email: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
}

/**
 * Sign-ups per store, per client address (RATE_LIMIT_NEWSLETTER_PER_IP a minute) and per address
 * signed up (RATE_LIMIT_NEWSLETTER_PER_EMAIL an hour): the route is public and a call may mail a
 * confirm link, so neither one client nor someone aiming at one mailbox gets far.
 */
export async function limitNewsletterSubscribe(ctx: AppContext, storeId: string, ip: string, email: string): Promise<void> {
  const limits = ctx.config.rateLimits;
  await consumeRateLimit(ctx, `newsletter:ip:${storeId}:${ip}`, limits.newsletterPerIpPerMinute);
  await consumeRateLimit(ctx, `newsletter:email:${storeId}:${email.toLowerCase()}`, limits.newsletterPerEmailPerHour, 3600);
}

/**
 * Storefront newsletter sign-up. An address that unsubscribed, or, when the store has
 * `newsletterDoubleOptIn`, any address not subscribed yet (new, or a customer an order created as
 * `not_subscribed`), is not subscribed here: it is sent a confirm link and the answer is
 * `{ status: "pending_confirmation" }` (anyone holding the public storefront token can call this).
 * Otherwise it creates or updates the store's customer as `subscribed`, recording when, from where
 * and from which IP. Idempotent: an already subscribed customer is left as is and gets no second
 * welcome email or confirm link. Names fill empty fields only.
 */
export async function subscribeToNewsletter(ctx: AppContext, storeId: string, input: SubscribeInput, ip: string | null) {
  const email = input.email.toLowerCase();
  const [store, existing] = await Promise.all([
    ctx.db('stores').where({ id: storeId }).first('name', 'newsletterDoubleOptIn'),
    ctx.db('customers').where({ storeId }).whereRaw('lower(email) = ?', [email]).first('emailMarketing')
  ]);
  const state = existing?.emailMarketing as string | undefined;
  const needsConfirmation = state !== 'subscribed' && (state === 'unsubscribed' || Boolean(store?.newsletterDoubleOptIn));
  if (needsConfirmation) {
    await withTransaction(ctx, (trx) => sendNewsletterConfirmation(ctx, trx, storeId, store?.name ?? '', { ...input, email }));
    return { status: 'pending_confirmation' as const, email };
  }
  return applySubscription(ctx, storeId, input, ip, 'newsletter');
}

/** Subscribes now (also what a confirmed double opt-in link does, with source `newsletter_confirmed`). */
export async function applySubscription(ctx: AppContext, storeId: string, input: SubscribeInput, ip: string | null, source: string) {
  await withTransaction(ctx, async (trx) => {
    const result = await trx.raw(
      `insert into customers as c (store_id, email, first_name, last_name, source,
          email_marketing, email_marketing_updated_at, email_marketing_source, email_marketing_ip)
       values (?, ?, ?, ?, 'newsletter', 'subscribed', now(), ?, ?)
       on conflict (store_id, lower(email)) do update
         set email_marketing = 'subscribed',
             email_marketing_updated_at = now(),
             email_marketing_source = excluded.email_marketing_source,
             email_marketing_ip = excluded.email_marketing_ip,
             first_name = coalesce(c.first_name, excluded.first_name),
             last_name = coalesce(c.last_name, excluded.last_name),
             updated_at = now()
         where c.email_marketing <> 'subscribed'
       returning c.*, (select name from stores where id = c.store_id) as store_name, (xmax = 0) as inserted`,
      [storeId, input.email.toLowerCase(), input.firstName ?? null, input.lastName ?? null, source, ip]
    );
    const changed = (result.rows[0] as (CustomerRow & { storeName: string; inserted: boolean }) | undefined) ?? null;
    if (changed) await reactInTransaction(ctx, trx, [{ type: 'customer.changed', storeId, customerIds: [changed.id], change: changed.inserted ? 'created' : 'updated' }]);
    // The welcome email is queued in the same transaction: it exists exactly when the subscription does.
    if (changed) await sendNewsletterWelcome(ctx, trx, changed, changed.storeName);
  });
  return { subscribed: true, email: input.email.toLowerCase(), emailMarketing: 'subscribed' as const };
}

async function sendNewsletterWelcome(ctx: AppContext, trx: Transaction, customer: CustomerRow, storeName: string) {
  await enqueueEmail(ctx, {
    storeId: customer.storeId,
    to: customer.email,
    templateKey: 'newsletter_welcome',
    data: {
      store: { name: storeName },
      customer: { firstName: customer.firstName, lastName: customer.lastName, email: customer.email },
      unsubscribeUrl: unsubscribeUrlFor(ctx, customer)
    },
    headers: listUnsubscribeHeaders(ctx, customer),
    marketingCustomerId: customer.id
  }, { trx });
}
