/** Keys whose values never enter the log (matched case-insensitively, anywhere in the name). */
const SECRET_KEY = /secret|password|token|api_?key|keyhash|sealed|authorization|cookie|credential/i;
export const REDACTED = '[redacted]';

/** A copy with secret-looking values replaced, at every level; dates become ISO strings. */
export function redact(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, inner]) => [key, SECRET_KEY.test(key) ? REDACTED : redact(inner)]));
  }
  return value;
}

/**
 * The changed fields of a record, `{ field: { before, after } }`: only fields whose value differs
 * (compared as JSON), secrets redacted. Either side may be null (created, deleted).
 */
export function diff(before: Record<string, unknown> | null | undefined, after: Record<string, unknown> | null | undefined): Record<string, { before: unknown; after: unknown }> {
  const b = (redact(before ?? {}) as Record<string, unknown>) ?? {};
  const a = (redact(after ?? {}) as Record<string, unknown>) ?? {};
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (key === 'updatedAt' || key === 'createdAt') continue;
    if (JSON.stringify(b[key] ?? null) !== JSON.stringify(a[key] ?? null)) changes[key] = { before: b[key] ?? null, after: a[key] ?? null };
  }
  return changes;
}
