/**
 * Tracked jobs as operators follow them at /admin/jobs: runs, progress, checkpoints, results. It
 * owns jobs.
 */
import type { Module } from '../../context.js';

export const jobHistoryModule: Module = { name: 'job-history' };
