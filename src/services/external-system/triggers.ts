import type { AppContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { recordReceipt, signatureHeaders, verifySignature } from '../../platform/signed-requests.js';
import { disconnectLink, linksOfAccount, requestSync } from './links.js';

/**
 * The external system calling us: `{ accountId }` signed with the link's webhook secret (the same
 * "timestamp.body" HMAC scheme, 5-minute tolerance, each delivery once). The account's links are
 * tried in turn; the one whose secret matches is the one acted on.
 */
export async function receiveExternalTrigger(
  ctx: AppContext,
  action: 'backfill' | 'disconnect',
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer
) {
  const signed = signatureHeaders(headers);
  let body: { accountId?: unknown };
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw badRequest('The body is not valid JSON');
  }
  const accountId = body && typeof body === 'object' && (typeof body.accountId === 'string' || typeof body.accountId === 'number') ? String(body.accountId) : null;
  if (!accountId) throw badRequest('The body needs an accountId', [{ path: 'accountId', message: 'accountId is required' }]);
  const links = await linksOfAccount(ctx, accountId);
  // No link: the signature cannot match anything; the same answer as a wrong signature.
  const index = verifySignature(signed, rawBody, links.length ? links.map((l) => l.secret) : ['\u0000no-link']);
  const link = links[index];
  if (!link) throw badRequest('The webhook signature does not match');
  if (!(await recordReceipt(ctx.db, `external-system:${action}:${link.row.id}`, signed.signature!))) {
    throw badRequest('This webhook delivery was already received (replay refused)');
  }
  if (action === 'disconnect') return { status: 200, body: await disconnectLink(ctx, link.row.storeId) };
  return { status: 202, body: await requestSync(ctx, link.row.storeId, null, 'webhook') };
}
