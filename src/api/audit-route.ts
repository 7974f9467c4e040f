import type { Lifecycle, Request, ResponseToolkit } from '@hapi/hapi';
import { runWithAuditRequest, type AuditActor, type AuditRequest, type PendingAuditEntry } from '../services/audit/index.js';
import { recordAudit } from '../services/audit/index.js';
import { withTransaction } from '../platform/with-transaction.js';
import { clientIp } from './client-ip.js';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The audit view of an admin request: its store, actor (a key names its creator), request id, IP, user agent. */
export function auditRequestOf(request: Request): AuditRequest {
  const tenant = request.app.tenant!;
  const email = (request.auth.credentials as { email?: string } | null)?.email ?? null;
  const actor: AuditActor = tenant.apiKeyId ? { type: 'api_key', apiKeyId: tenant.apiKeyId, userId: tenant.userId } : { type: 'user', userId: tenant.userId, email };
  const userAgent = request.headers['user-agent'];
  return { storeId: tenant.storeId, actor, requestId: request.info.id, ip: clientIp(request), userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 500) : null, recorded: 0 };
}

/** A request body kept whole in a generic entry up to this size (as JSON); a larger one by its field names. */
const BODY_KEPT = 4096;

/**
 * The generic entry of a state-changing admin request: `request.<method>` on the route as
 * registered, the first path parameter as the resource id, and what the request asked for: its
 * path parameters and its JSON body (secrets and tokens redacted when the entry is written; a
 * body over 4 KB by its field names only; an upload by its content type). There is no "before":
 * the route's service did not say what it changed (the services of the changes the issue names
 * record their own entry, with the fields' before and after).
 */
export function genericAuditEntry(request: Request): PendingAuditEntry {
  const method = request.method.toLowerCase();
  const params = request.params as Record<string, string>;
  const payload = request.payload;
  let body: Record<string, unknown> = {};
  if (payload && typeof payload === 'object' && !Buffer.isBuffer(payload) && typeof (payload as { pipe?: unknown }).pipe !== 'function') {
    const json = JSON.stringify(payload);
    body = json.length <= BODY_KEPT ? { body: JSON.parse(json) } : { fields: Object.keys(payload).sort() };
  } else if (payload) {
    body = { contentType: String(request.headers['content-type'] ?? '').split(';')[0] };
  }
  return { action: `request.${method}`, resourceType: request.route.path, resourceId: params.id ?? Object.values(params)[0] ?? null, details: { params, ...body } };
}

/** Marks the handlers wrapped below, so the coverage test can tell every admin route has one. */
export const AUDITED = Symbol('audited handler');

/**
 * Runs an admin route's handler inside its audit request (services' `recordAudit` finds actor, IP, …
 * there). A state-changing request carries its generic entry (`genericAuditEntry`) as pending:
 * when none of its transactions records an entry of its own, the first outermost transaction that
 * changed something writes the generic one before its COMMIT (the audit module's `beforeCommit`),
 * so the change and its entry commit together or not at all.
 *
 * A request that succeeded and still has no entry changed nothing in the database in a transaction
 * (it enqueued a job, sent a test delivery, answered a no-op): it gets the generic entry in a
 * transaction of its own after the handler, marked `outsideTransaction: true` so that a reader
 * (and test/integration/audit/audit-coverage.test.ts, which lists the routes that may do this) can
 * tell it apart.
 */
export function auditedHandler(handler: Lifecycle.Method): Lifecycle.Method {
  const wrapped = async (request: Request, h: ResponseToolkit) => {
    if (!request.app.tenant) return handler.call(null, request, h);
    const audit = auditRequestOf(request);
    const method = request.method.toUpperCase();
    const writes = WRITES.has(method);
    if (writes) audit.pending = genericAuditEntry(request);
    const result = await runWithAuditRequest(audit, () => handler.call(null, request, h));
    const status = (result as { statusCode?: number } | null)?.statusCode ?? 200;
    const ctx = request.server.app.ctx;
    // With the log off (the audit bench's comparison run) there is no entry to write, and an empty
    // transaction (BEGIN, COMMIT: two round trips) would be charged to the side without the log.
    if (writes && audit.recorded === 0 && status < 400 && ctx.config.audit.enabled) {
      const pending = audit.pending!;
      audit.pending = null;
      await runWithAuditRequest(audit, () =>
        withTransaction(ctx, (trx) => recordAudit(ctx, trx, { ...pending, details: { ...pending.details, outsideTransaction: true } }))
      );
    }
    return result;
  };
  return Object.assign(wrapped, { [AUDITED]: true }) as unknown as Lifecycle.Method;
}
