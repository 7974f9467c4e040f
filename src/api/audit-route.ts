import type { Lifecycle, Request, ResponseToolkit } from '@hapi/hapi';
import { runWithAuditRequest, type AuditActor, type AuditRequest } from '../services/audit/context.js';
import { recordAudit } from '../services/audit/record.js';
import { withTransaction } from '../services/with-transaction.js';
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

/** Marks the handlers wrapped below, so the coverage test can tell every admin route has one. */
export const AUDITED = Symbol('audited handler');

/**
 * Runs an admin route's handler inside its audit request (services' `recordAudit` finds actor, IP, …
 * there). A state-changing route that succeeded but whose service recorded nothing still leaves an
 * entry, `request.<method>` on the route's path: then in its own transaction right after the
 * change (the one case where the entry is not in the change's transaction; the services of the
 * changes the issue names record their own, in theirs).
 */
export function auditedHandler(handler: Lifecycle.Method): Lifecycle.Method {
  const wrapped = async (request: Request, h: ResponseToolkit) => {
    if (!request.app.tenant) return handler.call(null, request, h);
    const audit = auditRequestOf(request);
    const result = await runWithAuditRequest(audit, () => handler.call(null, request, h));
    const method = request.method.toUpperCase();
    const status = (result as { statusCode?: number } | null)?.statusCode ?? 200;
    if (WRITES.has(method) && audit.recorded === 0 && status < 400) {
      const ctx = request.server.app.ctx;
      const params = request.params as Record<string, string>;
      await runWithAuditRequest(audit, () =>
        withTransaction(ctx, (trx) =>
          recordAudit(ctx, trx, { action: `request.${method.toLowerCase()}`, resourceType: request.route.path, resourceId: params.id ?? Object.values(params)[0] ?? null, details: { params } })
        )
      );
    }
    return result;
  };
  return Object.assign(wrapped, { [AUDITED]: true }) as unknown as Lifecycle.Method;
}
