import type { AppContext } from '../../context.js';
import { raiseIssue } from './issues.js';

/** Job-run types whose final failure the operator must hear about, and how to word it. */
const FAILURE_ISSUES: Record<string, { kind: string; title: string }> = {
  'customers.import': { kind: 'import_failed', title: 'A customer import failed' },
  'external_system.backfill': { kind: 'sync_failed', title: 'Syncing from the external system failed' }
};

/** Called when a job run has failed for good: raises the matching issue (deduplicated per kind). */
export async function raiseJobFailureIssue(ctx: AppContext, run: { id: string; storeId: string | null; type: string }, message: string) {
  const issue = FAILURE_ISSUES[run.type];
  if (!issue || !run.storeId) return;
  await raiseIssue(ctx.db, { storeId: run.storeId, kind: issue.kind, subject: '', severity: 'critical', title: issue.title, detail: `Job ${run.id}: ${message}` });
}

/** An email that failed on its last attempt (the recipient's server keeps refusing, or SMTP is down). */
export async function raiseEmailFailureIssue(
  ctx: AppContext,
  email: { emailLogId: string; storeId: string | null; templateKey: string | null; to?: string },
  message: string
) {
  if (!email.storeId) return;
  // The job carries ids only: the recipient is the log row's.
  const to = (await ctx.db('emailLog').where({ id: email.emailLogId, storeId: email.storeId }).first('toEmail'))?.toEmail ?? email.to;
  await raiseIssue(ctx.db, {
    storeId: email.storeId,
    kind: 'email_failed',
    subject: email.templateKey ?? 'custom',
    severity: 'warning',
    title: `Email could not be delivered${email.templateKey ? ` (${email.templateKey})` : ''}`,
    detail: `To ${to ?? 'an unknown recipient'}: ${message}`
  });
}
