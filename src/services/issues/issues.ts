import type { Sql } from '../../db/transaction.js';

export const ISSUE_SEVERITIES = ['info', 'warning', 'critical'] as const;
export type IssueSeverity = (typeof ISSUE_SEVERITIES)[number];

export interface RaiseIssueInput {
  storeId: string;
  /** What kind of problem: `webhook_failed`, `email_failed`, `dns_failed`, `low_stock`, … */
  kind: string;
  /** What it is about (a domain, an event id, a variant): one open issue per kind and subject. */
  subject?: string;
  severity: IssueSeverity;
  title: string;
  detail?: string | null;
}

/**
 * Raises an operational issue for the store's operator. A repeat of an open issue (same kind and
 * subject) counts an occurrence and moves `lastSeenAt` instead of adding a row; the upsert makes
 * that hold when workers raise the same issue at once.
 */
export async function raiseIssue(db: Sql, input: RaiseIssueInput): Promise<{ id: string; occurrences: number }> {
  const result = await db.raw(
    `insert into store_issues as i (store_id, kind, subject, severity, title, detail)
     values (?, ?, ?, ?, ?, ?)
     on conflict (store_id, kind, subject) where resolved_at is null do update
       set occurrences = i.occurrences + 1,
           last_seen_at = now(),
           severity = excluded.severity,
           title = excluded.title,
           detail = excluded.detail
     returning id, occurrences`,
    [input.storeId, input.kind, input.subject ?? '', input.severity, input.title.slice(0, 500), input.detail?.slice(0, 4000) ?? null]
  );
  return result.rows[0];
}
