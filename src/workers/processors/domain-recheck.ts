import { domainRecheckJob } from '../../jobs/domain-recheck.js';
import { recheckDueDomains } from '../../services/domains/index.js';
import { processorOf } from '../processor.js';

export const domainRecheckProcessor = processorOf(domainRecheckJob, (ctx) => recheckDueDomains(ctx));
