import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { unprocessable } from '../../errors.js';
import { maskEmail } from '../../platform/secrets.js';
import { creditUnsubscribe } from '../../platform/modules/registry.js';
import { consentColumns, type CustomerRow } from './customers.js';
import { withTransaction } from '../../platform/with-transaction.js';

/**
 * Unsubscribe tokens: `base64url(customer uuid bytes [+ campaign uuid bytes]).base64url(HMAC-SHA256)`.
 * They name the customer by id only (no readable email), and a campaign's email also names the
 * campaign, so the unsubscribe is credited to the email whose link was used. They never expire, and
 * unsubscribing twice changes nothing. The HMAC key is derived from ENCRYPTION_KEY, so rotating
 * that key invalidates old links.
 */
const TOKEN_PURPOSE = 'shopwright:unsubscribe:v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function signingKey(ctx: AppContext): Buffer {
  return createHmac('sha256', ctx.config.encryptionKey).update(TOKEN_PURPOSE).digest();
}

/** Customer-only tokens sign the id, as the first tokens did (they stay valid); campaign ones sign both. */
function signature(ctx: AppContext, customerId: string, campaignId: string | null): Buffer {
  return createHmac('sha256', signingKey(ctx))
    .update(campaignId ? `${customerId}/${campaignId}` : customerId)
    .digest();
}

const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ''), 'hex');
const uuidOf = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

export function unsubscribeTokenFor(ctx: AppContext, customerId: string, campaignId: string | null = null): string {
  const idBytes = campaignId ? Buffer.concat([uuidBytes(customerId), uuidBytes(campaignId)]) : uuidBytes(customerId);
  return `${idBytes.toString('base64url')}.${signature(ctx, customerId, campaignId).toString('base64url')}`;
}

/** The customer (and campaign, if any) a token was signed for, or null when the token is not one of ours. */
export function verifyUnsubscribeToken(ctx: AppContext, token: string): { customerId: string; campaignId: string | null } | null {
  const [idPart, sigPart, extra] = token.split('.');
  if (!idPart || !sigPart || extra !== undefined) return null;
  const hex = Buffer.from(idPart, 'base64url').toString('hex');
  if (hex.length !== 32 && hex.length !== 64) return null;
  const customerId = uuidOf(hex.slice(0, 32));
  const campaignId = hex.length === 64 ? uuidOf(hex.slice(32)) : null;
  if (!UUID.test(customerId) || (campaignId && !UUID.test(campaignId))) return null;
  const given = Buffer.from(sigPart, 'base64url');
  const expected = signature(ctx, customerId, campaignId);
  return given.length === expected.length && timingSafeEqual(given, expected) ? { customerId, campaignId } : null;
}

/** The link every marketing email carries (also the `List-Unsubscribe` target); a campaign's names the campaign. */
export function unsubscribeUrlFor(ctx: AppContext, customer: { id: string }, campaignId: string | null = null): string {
  return `${ctx.config.appUrl}/api/v1/public/unsubscribe?token=${unsubscribeTokenFor(ctx, customer.id, campaignId)}`;
}

/** RFC 2369 / RFC 8058 headers for a marketing email to this customer. */
export function listUnsubscribeHeaders(ctx: AppContext, customer: { id: string }): Record<string, string> {
  return listUnsubscribeHeadersFor(unsubscribeUrlFor(ctx, customer));
}

/** The same headers for an unsubscribe link already made (a campaign's, which names the campaign). */
export const listUnsubscribeHeadersFor = (unsubscribeUrl: string): Record<string, string> => ({
  'List-Unsubscribe': `<${unsubscribeUrl}>`,
  'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click'
});

const invalidToken = () => unprocessable('invalid_token', 'The unsubscribe link is not valid', [{ path: 'token', message: 'token is invalid' }]);

async function customerForToken(ctx: AppContext, token: string): Promise<{ row: CustomerRow; campaignId: string | null }> {
  const claims = verifyUnsubscribeToken(ctx, token);
  // The token names no store (links already sent stay valid): a lookup across stores (docs/scaling.md).
  const row: CustomerRow | undefined = claims ? await ctx.db('customers').comment('cross-store: unsubscribe link').where({ id: claims.customerId }).first() : undefined;
  if (!row) throw invalidToken();
  return { row, campaignId: claims!.campaignId };
}

/** What a confirmation page shows; changes nothing (mail scanners follow GET links). */
export async function describeUnsubscribe(ctx: AppContext, token: string) {
  const { row } = await customerForToken(ctx, token);
  const store = await ctx.db('stores').where({ id: row.storeId }).first('name');
  return { email: maskEmail(row.email), emailMarketing: row.emailMarketing, store: { name: store?.name ?? '' } };
}

/**
 * Unsubscribes the token's customer; a second call finds nothing to change and answers the same.
 * The campaign a token names is credited with the unsubscribe it caused, in the same transaction.
 */
export async function unsubscribeByToken(ctx: AppContext, token: string, ip: string | null) {
  const { row, campaignId } = await customerForToken(ctx, token);
  await withTransaction(ctx, async (trx) => {
    const changed = await trx('customers')
      .where({ storeId: row.storeId, id: row.id })
      .whereNot({ emailMarketing: 'unsubscribed' })
      .update({ ...consentColumns(trx, 'unsubscribed', { source: 'unsubscribe_link', ip }), updatedAt: trx.fn.now() });
    if (changed && campaignId) await creditUnsubscribe(ctx, trx, row.storeId, row.id, campaignId);
  });
  return { unsubscribed: true, email: maskEmail(row.email) };
}

/** Checked at send time by every marketing send: an unsubscribe wins over anything queued before it. */
export async function isSubscribed(ctx: AppContext, storeId: string, customerId: string): Promise<boolean> {
  const row = await ctx.db('customers').where({ storeId, id: customerId }).first('emailMarketing');
  return row?.emailMarketing === 'subscribed';
}
