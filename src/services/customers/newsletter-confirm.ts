import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { unprocessable } from '../../errors.js';
import { enqueueEmail } from '../email/index.js';
import { maskEmail } from '../../platform/secrets.js';
import type { Transaction } from '../../db/transaction.js';

/**
 * Double opt-in. Anyone holding a (public) storefront token can call subscribe, so an address that
 * unsubscribed (or, with the store setting `newsletterDoubleOptIn`, any new address) is subscribed
 * only when its owner follows the emailed link and POSTs it. The link's token is signed (HMAC keyed
 * from ENCRYPTION_KEY) over store, email and names, expires after 7 days, and nothing is stored
 * until it is confirmed. GET describes it (mail scanners follow links); only POST subscribes.
 */
const TOKEN_PURPOSE = 'shopwright:newsletter-confirm:v1';
export const CONFIRM_TTL_MS = 7 * 24 * 3600_000;

interface ConfirmClaims {
  s: string;
  e: string;
  f: string | null;
  l: string | null;
  /** Expiry, ms since the epoch. */
  x: number;
}

function signature(ctx: AppContext, body: string): Buffer {
  const key = createHmac('sha256', ctx.config.encryptionKey).update(TOKEN_PURPOSE).digest();
  return createHmac('sha256', key).update(body).digest();
}

export function newsletterConfirmToken(ctx: AppContext, storeId: string, input: { email: string; firstName?: string | null; lastName?: string | null }): string {
  const claims: ConfirmClaims = { s: storeId, e: input.email.toLowerCase(), f: input.firstName ?? null, l: input.lastName ?? null, x: Date.now() + CONFIRM_TTL_MS };
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${body}.${signature(ctx, body).toString('base64url')}`;
}

const invalidToken = (message = 'The confirmation link is not valid or has expired') =>
  unprocessable('invalid_token', message, [{ path: 'token', message: 'token is invalid or expired' }]);

function verify(ctx: AppContext, token: string): ConfirmClaims {
  const [body, sig, extra] = token.split('.');
  if (!body || !sig || extra !== undefined) throw invalidToken();
  const given = Buffer.from(sig, 'base64url');
  const expected = signature(ctx, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidToken();
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ConfirmClaims;
  if (typeof claims.x !== 'number' || claims.x < Date.now()) throw invalidToken();
  return claims;
}

export function newsletterConfirmUrl(ctx: AppContext, token: string): string {
  return `${ctx.config.appUrl}/api/v1/public/newsletter/confirm?token=${token}`;
}

/** Emails the confirm link, queued in the caller's transaction. */
export async function sendNewsletterConfirmation(
  ctx: AppContext,
  trx: Transaction,
  storeId: string,
  storeName: string,
  input: { email: string; firstName?: string | null; lastName?: string | null }
): Promise<void> {
  const url = newsletterConfirmUrl(ctx, newsletterConfirmToken(ctx, storeId, input));
  const name = storeName.replace(/[<>&"]/g, '');
  await enqueueEmail(
    ctx,
    {
      storeId,
      to: input.email.toLowerCase(),
      templateKey: null,
      content: {
        subject: `Confirm your subscription to ${storeName}`,
        text: `Please confirm that you want ${storeName}'s newsletter at this address:\n\n${url}\n\nIf you did not ask for it, ignore this email: nothing will be sent.`,
        html: `<p>Please confirm that you want <strong>${name}</strong>'s newsletter at this address.</p><p><a href="${url}">Confirm my subscription</a></p><p>If you did not ask for it, ignore this email: nothing will be sent.</p>`
      }
    },
    { trx }
  );
}

/** What the link confirms; changes nothing. */
export async function describeNewsletterConfirmation(ctx: AppContext, token: string) {
  const claims = verify(ctx, token);
  const [store, customer] = await Promise.all([
    ctx.db('stores').where({ id: claims.s }).first('name'),
    ctx.db('customers').where({ storeId: claims.s }).whereRaw('lower(email) = ?', [claims.e]).first('emailMarketing')
  ]);
  if (!store) throw invalidToken();
  return { email: maskEmail(claims.e), emailMarketing: (customer?.emailMarketing as string | undefined) ?? 'not_subscribed', store: { name: store.name as string } };
}

/** Subscribes the link's address (idempotent); the consent records the confirmation and its IP. */
export async function confirmNewsletterSubscription(
  ctx: AppContext,
  token: string,
  ip: string | null,
  subscribe: (storeId: string, input: { email: string; firstName?: string; lastName?: string }, ip: string | null, source: string) => Promise<unknown>
) {
  const claims = verify(ctx, token);
  const store = await ctx.db('stores').where({ id: claims.s }).first('id');
  if (!store) throw invalidToken();
  await subscribe(claims.s, { email: claims.e, firstName: claims.f ?? undefined, lastName: claims.l ?? undefined }, ip, 'newsletter_confirmed');
  return { subscribed: true, email: maskEmail(claims.e), emailMarketing: 'subscribed' as const };
}
