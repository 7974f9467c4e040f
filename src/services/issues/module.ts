import type { Module } from '../../context.js';
import { StoreIssue } from '../../db/models/store-issue.js';

export const issuesModule: Module = {
  name: 'issues',
  async dashboard(ctx, storeId) {
    const rows = await StoreIssue.query(ctx.db)
      .where({ storeId })
      .whereNull('resolvedAt')
      .orderBy([{ column: 'lastSeenAt', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(5)
      .select('id', 'kind', 'severity', 'title', 'occurrences', 'lastSeenAt');
    // Plain objects: a model instance also carries every column it did not select (as undefined keys).
    const openIssues = rows.map(({ id, kind, severity, title, occurrences, lastSeenAt }) => ({ id, kind, severity, title, occurrences, lastSeenAt }));
    return { openIssues };
  }
};
