import { customersExportJob, customersImportJob } from './customers-csv.js';
import type { JobDefinition } from './definition.js';
import { sendEmailJob } from './send-email.js';
import { domainCheckJob } from './domain-check.js';

/** Every job kind the workers run. Add new definitions here. */
export const JOB_DEFINITIONS: JobDefinition<any, any>[] = [sendEmailJob, customersImportJob, customersExportJob, domainCheckJob];
