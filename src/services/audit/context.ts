import { AsyncLocalStorage } from 'node:async_hooks';

/** Who is acting: a person, an API key (with the member who created it), or a system job. */
export type AuditActor =
  | { type: 'user'; userId: string; email?: string | null }
  | { type: 'api_key'; apiKeyId: string; userId: string }
  | { type: 'system'; name: string };

/**
 * What an admin request knows about itself, for the entries written while it runs. Set around the
 * handler of every admin route (api/route-helpers.ts `adminRoute`) with AsyncLocalStorage, so a
 * service records an entry with its own transaction handle and nothing else: no signature in
 * between grows an `actor` parameter. `recorded` counts the entries written, so that a
 * state-changing route whose service records nothing still leaves a generic one (api/audit-route.ts).
 */
export interface AuditRequest {
  storeId: string;
  actor: AuditActor;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  recorded: number;
}

const storage = new AsyncLocalStorage<AuditRequest>();

export function runWithAuditRequest<T>(request: AuditRequest, work: () => T): T {
  return storage.run(request, work);
}

export function currentAuditRequest(): AuditRequest | undefined {
  return storage.getStore();
}
