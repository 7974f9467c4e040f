import type { AppContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { recordReceipt, signatureHeaders, verifySignature } from '../signed-requests.js';
import { normalizeHostname } from './hostname.js';

const ISSUED = new Set(['certificate.issued', 'certificate_issued', 'domain.active', 'issued', 'active']);

interface HostedDomainEvent {
  hostname?: unknown;
  domain?: unknown;
  event?: unknown;
  type?: unknown;
  status?: unknown;
}

/**
 * The hosting provider's callback: signed with HOSTED_DOMAIN_WEBHOOK_SECRET over "timestamp.body",
 * at most 5 minutes old, each delivery accepted once. A "certificate issued" event for a verified
 * (or pending: the provider validated it itself) domain makes it `active`.
 */
export async function receiveHostedDomainWebhook(ctx: AppContext, headers: Record<string, string | string[] | undefined>, rawBody: Buffer) {
  const signed = signatureHeaders(headers);
  verifySignature(signed, rawBody, [ctx.config.hostedDomainWebhookSecret]);
  let event: HostedDomainEvent;
  try {
    event = JSON.parse(rawBody.toString('utf8')) as HostedDomainEvent;
  } catch {
    throw badRequest('The webhook body is not valid JSON');
  }
  if (!event || typeof event !== 'object') throw badRequest('The webhook body must be a JSON object');
  const rawHost = typeof event.hostname === 'string' ? event.hostname : typeof event.domain === 'string' ? event.domain : null;
  if (!rawHost) throw badRequest('The webhook body needs a hostname', [{ path: 'hostname', message: 'hostname is required' }]);
  if (!(await recordReceipt(ctx.db, 'hosted-domain', signed.signature!))) throw badRequest('This webhook delivery was already received (replay refused)');

  const kind = [event.event, event.type, event.status].find((value) => typeof value === 'string') as string | undefined;
  const hostname = normalizeHostname(rawHost);
  if (!kind || !ISSUED.has(kind.toLowerCase())) return { received: true, applied: false };
  const updated = await ctx.db('storeDomains')
    .whereRaw('lower(hostname) = ?', [hostname])
    .whereIn('status', ['pending', 'verified', 'failed'])
    .update({ status: 'active', activatedAt: ctx.db.fn.now(), nextCheckAt: null, failures: JSON.stringify([]), updatedAt: ctx.db.fn.now() })
    .returning('id');
  return { received: true, applied: updated.length > 0 };
}
