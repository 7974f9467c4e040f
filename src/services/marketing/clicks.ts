import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';

/**
 * Tracked links: `base64url(JSON [campaignId, customerId, url]).base64url(HMAC-SHA256)`. The
 * redirect goes only to the URL inside a valid signature, so the endpoint is no open redirect; a
 * changed byte anywhere is a 404.
 */
const TOKEN_PURPOSE = 'shopwright:campaign-click:v1';

function signingKey(ctx: AppContext): Buffer {
  return createHmac('sha256', ctx.config.encryptionKey).update(TOKEN_PURPOSE).digest();
}

export function clickTokenFor(key: Buffer, campaignId: string, customerId: string, url: string): string {
  const body = Buffer.from(JSON.stringify([campaignId, customerId, url])).toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function verifyClickToken(ctx: AppContext, token: string): { campaignId: string; customerId: string; url: string } | null {
  const [body, sig, extra] = token.split('.');
  if (!body || !sig || extra !== undefined) return null;
  const given = Buffer.from(sig, 'base64url');
  const expected = createHmac('sha256', signingKey(ctx)).update(body).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const [campaignId, customerId, url] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [string, string, string];
    if (!UUID.test(String(campaignId)) || !UUID.test(String(customerId)) || typeof url !== 'string' || !/^https?:\/\//i.test(url)) return null;
    return { campaignId, customerId, url };
  } catch {
    return null;
  }
}

const decodeEntities = (s: string) => s.replace(/&amp;/g, '&').replace(/&#x27;|&#39;/g, "'").replace(/&quot;/g, '"');

/**
 * Rewrites every http(s) `href` of a rendered HTML body through the click redirect, except the
 * unsubscribe link (which must keep working as itself).
 */
export function trackLinks(ctx: AppContext, key: Buffer, html: string, campaignId: string, customerId: string, keep: string): string {
  const base = `${ctx.config.appUrl}/api/v1/public/c/`;
  return html.replace(/href=(["'])(https?:\/\/[^"']+)\1/gi, (match, quote: string, href: string) => {
    const url = decodeEntities(href);
    if (url === keep) return match;
    return `href=${quote}${base}${clickTokenFor(key, campaignId, customerId, url)}${quote}`;
  });
}

/** Punctuation that ends a sentence around a bare URL rather than belonging to it. */
const TRAILING_PUNCTUATION = /[.,;:!?)\]'"]+$/;

/**
 * The same for a plain-text body: every bare http(s) URL goes through the click redirect, except
 * the unsubscribe link; punctuation right after a URL stays outside it.
 */
export function trackTextLinks(ctx: AppContext, key: Buffer, text: string, campaignId: string, customerId: string, keep: string): string {
  const base = `${ctx.config.appUrl}/api/v1/public/c/`;
  return text.replace(/https?:\/\/[^\s<>"]+/gi, (match: string) => {
    const url = match.replace(TRAILING_PUNCTUATION, '');
    if (!url || url === keep) return match;
    return `${base}${clickTokenFor(key, campaignId, customerId, url)}${match.slice(url.length)}`;
  });
}

export const clickSigningKey = signingKey;

/**
 * Answers where to redirect, counting the click when `count` (a GET; link scanners probe with HEAD,
 * which gets the same answer uncounted); anything not signed by us is a 404.
 */
export async function followClick(ctx: AppContext, token: string, options: { count: boolean }): Promise<string> {
  const click = verifyClickToken(ctx, token);
  if (!click) throw notFound('Link');
  // The signed token names no store (links already sent stay valid): the campaign's id finds it.
  const campaign = await ctx.db('campaigns').comment('cross-store: campaign click link').where({ id: click.campaignId }).first('storeId');
  if (!campaign) throw notFound('Link');
  const { storeId } = campaign as { storeId: string };
  const recipient = await ctx.db('campaignRecipients').where({ storeId, campaignId: click.campaignId, customerId: click.customerId }).first('status');
  if (!recipient) throw notFound('Link');
  if (options.count) await ctx.db('campaignClicks').insert({ storeId, campaignId: click.campaignId, customerId: click.customerId, url: click.url });
  return click.url;
}
