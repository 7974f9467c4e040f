import type { Module } from '../../context.js';
import { raiseJobFailureIssue } from './failure-issues.js';

export const issuesModule: Module = {
  name: 'issues',
  jobFailed: (ctx, run, message) => raiseJobFailureIssue(ctx, run, message),
  async dashboard(ctx, storeId) {
    const openIssues = await ctx
      .db('storeIssues')
      .where({ storeId })
      .whereNull('resolvedAt')
      .orderBy([{ column: 'lastSeenAt', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(5)
      .select('id', 'kind', 'severity', 'title', 'occurrences', 'lastSeenAt');
    return { openIssues };
  }
};
