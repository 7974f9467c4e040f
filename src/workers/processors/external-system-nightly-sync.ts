import { externalSystemNightlySyncJob } from '../../jobs/external-system-nightly-sync.js';
import { queueNightlySyncs } from '../../services/external-system/index.js';
import { processorOf } from '../processor.js';

export const externalSystemNightlySyncProcessor = processorOf(externalSystemNightlySyncJob, (ctx) => queueNightlySyncs(ctx));
