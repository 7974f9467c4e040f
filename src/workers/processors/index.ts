import type { JobProcessor } from '../processor.js';
import { campaignBatchProcessor } from './campaign-batch.js';
import { campaignStartProcessor } from './campaign-start.js';
import { campaignSweepProcessor } from './campaign-sweep.js';
import { checkoutReservationsReleaseProcessor, expiredCartsCleanupProcessor, idempotencyKeysPurgeProcessor } from './checkout-maintenance.js';
import { auditExportProcessor } from './audit-export.js';
import { auditRetentionProcessor } from './audit-retention.js';
import { auditSealProcessor } from './audit-seal.js';
import { taxSyncProcessor } from './tax-sync.js';
import { customersExportProcessor } from './customers-export.js';
import { taxReportProcessor } from './tax-report.js';
import { customersImportProcessor } from './customers-import.js';
import { productsBulkProcessor, productsExportProcessor, productsImportProcessor } from './products.js';
import { domainCheckProcessor } from './domain-check.js';
import { domainRecheckProcessor } from './domain-recheck.js';
import { externalSystemBackfillProcessor } from './external-system-backfill.js';
import { externalSystemNightlySyncProcessor } from './external-system-nightly-sync.js';
import { jobRunsSweepProcessor } from './job-runs-sweep.js';
import { lowStockScanProcessor } from './low-stock-scan.js';
import { passwordResetRequestProcessor } from './password-reset-request.js';
import { sendEmailProcessor } from './send-email.js';
import { stripeEventProcessor } from './stripe-event.js';
import { unpaidOrdersCancelProcessor } from './unpaid-orders-cancel.js';
import { webhookReconcileProcessor } from './webhook-reconcile.js';
import { webhookSweepProcessor } from './webhook-sweep.js';
import { webhookDeliveryProcessor } from './webhook-delivery.js';

/** What the workers run, one processor per declared job kind (src/jobs/registry.ts). Add one line per kind. */
export const PROCESSORS: JobProcessor[] = [
  sendEmailProcessor,
  passwordResetRequestProcessor,
  customersImportProcessor,
  auditExportProcessor,
  auditRetentionProcessor,
  auditSealProcessor,
  taxSyncProcessor,
  customersExportProcessor,
  taxReportProcessor,
  productsImportProcessor,
  productsExportProcessor,
  productsBulkProcessor,
  jobRunsSweepProcessor,
  stripeEventProcessor,
  checkoutReservationsReleaseProcessor,
  expiredCartsCleanupProcessor,
  idempotencyKeysPurgeProcessor,
  domainCheckProcessor,
  domainRecheckProcessor,
  lowStockScanProcessor,
  externalSystemBackfillProcessor,
  externalSystemNightlySyncProcessor,
  webhookReconcileProcessor,
  webhookSweepProcessor,
  campaignStartProcessor,
  campaignBatchProcessor,
  campaignSweepProcessor,
  unpaidOrdersCancelProcessor,
  webhookDeliveryProcessor
];
