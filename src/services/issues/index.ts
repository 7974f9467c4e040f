/**
 * The face of module issues: the store's open issues (raised, resolved, listed), low-stock scans.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { raiseEmailFailureIssue, raiseJobFailureIssue } from './failure-issues.js';
export { ISSUE_SEVERITIES, raiseIssue } from './issues.js';
export { scanLowStock } from './low-stock.js';
export { listIssues, resolveIssue, resolveIssuesOf } from './manage.js';
export { issuesModule } from './module.js';
