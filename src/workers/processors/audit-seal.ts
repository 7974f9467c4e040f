import { auditSealJob } from '../../jobs/audit-seal.js';
import { sealAllPending } from '../../services/audit/index.js';
import { processorOf } from '../processor.js';

export const auditSealProcessor = processorOf(auditSealJob, (ctx) => sealAllPending(ctx));
