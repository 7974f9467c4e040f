import { taxSyncJob } from '../../jobs/tax-sync.js';
import { runTaxSync } from '../../use-cases/tax-transactions.js';
import { processorOf } from '../processor.js';

export const taxSyncProcessor = processorOf(taxSyncJob, (ctx, job) => runTaxSync(ctx, job.data));
