import { ScopedStorage } from '../../platform/scoped-storage.js';

/** Who is acting: a person, an API key (with the member who created it), or a system job. */
export type AuditActor =
  | { type: 'user'; userId: string; email?: string | null }
  | { type: 'api_key'; apiKeyId: string; userId: string }
  | { type: 'system'; name: string };

/**
 * What an admin request knows about itself, for the entries written while it runs. Set around the
 * handler of every admin route (api/route-helpers.ts `adminRoute`) with AsyncLocalStorage, so a
 * service records an entry with its own transaction handle and nothing else: no signature in
 * between grows an `actor` parameter. `recorded` counts the entries committed. A state-changing
 * request carries its generic entry in `pending`: the first outermost transaction of the request
 * that changed something and recorded no entry of its own writes it before its COMMIT (the audit
 * module's `beforeCommit`), so a route whose service records nothing still has its entry in the
 * change's transaction (api/audit-route.ts).
 */
export interface AuditRequest {
  storeId: string;
  actor: AuditActor;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  recorded: number;
  /** The generic entry of a state-changing request, written by its first changing transaction that recorded none. */
  pending?: PendingAuditEntry | null;
}

/** What a generic entry says (the fields of `AuditEntryInput` it uses). */
export interface PendingAuditEntry {
  action: string;
  resourceType: string;
  resourceId: string | null;
  details: Record<string, unknown>;
}

// Scoped: its promise hooks are on only while an admin request runs (platform/scoped-storage.ts).
const storage = new ScopedStorage<AuditRequest>({ requestScope: true });

export function runWithAuditRequest<T>(request: AuditRequest, work: () => T): T {
  return storage.run(request, work);
}

export function currentAuditRequest(): AuditRequest | undefined {
  return storage.getStore();
}

/** Runs `work` outside any admin request (a seal scheduled by a request must not count as its change). */
export function outsideAuditRequest<T>(work: () => T): T {
  return storage.exit(work);
}
