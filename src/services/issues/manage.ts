import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import type { Sql } from '../../db/transaction.js';

export interface IssueRow {
  id: string;
  storeId: string;
  kind: string;
  subject: string;
  severity: string;
  title: string;
  detail: string | null;
  occurrences: number;
  firstSeenAt: Date;
  lastSeenAt: Date;
  resolvedAt: Date | null;
}

export const toIssueDto = (row: IssueRow) => ({
  id: row.id,
  kind: row.kind,
  subject: row.subject || null,
  severity: row.severity,
  title: row.title,
  detail: row.detail,
  occurrences: row.occurrences,
  firstSeenAt: row.firstSeenAt,
  lastSeenAt: row.lastSeenAt,
  resolvedAt: row.resolvedAt
});

/** The operator's issue list: open (default) or resolved, most recently seen first. */
export async function listIssues(ctx: AppContext, storeId: string, filters: { status?: 'open' | 'resolved' }, page: PageRequest) {
  const query = ctx.db('storeIssues').where({ storeId });
  if (filters.status === 'resolved') query.whereNotNull('resolvedAt');
  else query.whereNull('resolvedAt');
  const result = await keysetPage<IssueRow>(query, { column: 'lastSeenAt', direction: 'desc' }, page);
  return { issues: result.items.map(toIssueDto), nextCursor: result.nextCursor };
}

/** Marks an issue resolved (idempotent); the next occurrence of the same problem opens a new one. */
export async function resolveIssue(ctx: AppContext, storeId: string, issueId: string) {
  const [updated]: IssueRow[] = await ctx.db('storeIssues')
    .where({ storeId, id: issueId })
    .update({ resolvedAt: ctx.db.raw('coalesce(resolved_at, now())') })
    .returning('*');
  if (!updated) throw notFound('Issue');
  return { issue: toIssueDto(updated) };
}

/** A problem that went away by itself (records fixed, sync succeeded): its open issue is resolved. */
export async function resolveIssuesOf(db: Sql, storeId: string, kind: string, subject = ''): Promise<void> {
  await db('storeIssues').where({ storeId, kind, subject }).whereNull('resolvedAt').update({ resolvedAt: db.fn.now() });
}
