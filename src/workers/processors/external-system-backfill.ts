import { externalSystemBackfillJob } from '../../jobs/external-system-backfill.js';
import { runBackfill } from '../../services/external-system/index.js';
import { trackedProcessor } from './tracked.js';

export const externalSystemBackfillProcessor = trackedProcessor(externalSystemBackfillJob, (ctx, jobId, signal) => runBackfill(ctx, jobId, signal));
