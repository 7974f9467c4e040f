import { taxReportJob } from '../../jobs/tax-report.js';
import { runTaxReport } from '../../services/taxes/index.js';
import { trackedProcessor } from './tracked.js';

export const taxReportProcessor = trackedProcessor(taxReportJob, (ctx, jobId) => runTaxReport(ctx, jobId));
