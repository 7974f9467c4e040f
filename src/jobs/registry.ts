import { campaignBatchJob } from './campaign-batch.js';
import { campaignStartJob } from './campaign-start.js';
import { campaignSweepJob } from './campaign-sweep.js';
import { checkoutReservationsReleaseJob, expiredCartsCleanupJob, idempotencyKeysPurgeJob } from './checkout-maintenance.js';
import { auditExportJob } from './audit-export.js';
import { auditRetentionJob } from './audit-retention.js';
import { auditSealJob } from './audit-seal.js';
import { taxSyncJob } from './tax-sync.js';
import { customersExportJob } from './customers-export.js';
import { taxReportJob } from './tax-report.js';
import { customersImportJob } from './customers-import.js';
import { productsBulkJob } from './products-bulk.js';
import { productsExportJob } from './products-export.js';
import { productsImportJob } from './products-import.js';
import { domainCheckJob } from './domain-check.js';
import { domainRecheckJob } from './domain-recheck.js';
import { externalSystemBackfillJob } from './external-system-backfill.js';
import { externalSystemNightlySyncJob } from './external-system-nightly-sync.js';
import { webhookReconcileJob } from './webhook-reconcile.js';
import { webhookSweepJob } from './webhook-sweep.js';
import type { JobKind } from './job-kind.js';
import { isTrackedJob, type TrackedJobKind } from './tracked.js';
import { jobRunsSweepJob } from './job-runs-sweep.js';
import { lowStockScanJob } from './low-stock-scan.js';
import { passwordResetRequestJob } from './password-reset-request.js';
import { sendEmailJob } from './send-email.js';
import { stripeEventJob } from './stripe-event.js';
import { unpaidOrdersCancelJob } from './unpaid-orders-cancel.js';
import { webhookDeliveryJob } from './webhook-delivery.js';

/** Every declared job kind (schedules are registered from here); each has its processor in src/workers/processors/. Add one line per kind. */
export const JOB_KINDS: JobKind[] = [
  sendEmailJob,
  passwordResetRequestJob,
  customersImportJob,
  auditExportJob,
  auditRetentionJob,
  auditSealJob,
  taxSyncJob,
  customersExportJob,
  taxReportJob,
  productsImportJob,
  productsExportJob,
  productsBulkJob,
  jobRunsSweepJob,
  stripeEventJob,
  checkoutReservationsReleaseJob,
  expiredCartsCleanupJob,
  idempotencyKeysPurgeJob,
  domainCheckJob,
  domainRecheckJob,
  lowStockScanJob,
  externalSystemBackfillJob,
  externalSystemNightlySyncJob,
  webhookReconcileJob,
  webhookSweepJob,
  campaignStartJob,
  campaignBatchJob,
  campaignSweepJob,
  unpaidOrdersCancelJob,
  webhookDeliveryJob
];

/** The kinds operators follow at /admin/jobs, each with its `jobs` row type and the scope its result needs. */
export const TRACKED_JOB_KINDS: TrackedJobKind[] = JOB_KINDS.filter(isTrackedJob);
