import type { AppContext } from '../../../context.js';
import { productsImportJob } from '../../../jobs/products-import.js';
import { AppError, badRequest } from '../../../errors.js';
import { findQuoteProblem } from '../../../platform/csv/quotes.js';
import { streamCsvRecords } from '../../../platform/csv/stream.js';
import { completeJob, findJobRow, insertJobRowErrors, saveJobProgressFrom } from '../../job-history/index.js';
import { BulkPacer } from '../../../platform/bulk-pacing.js';
import { withTransaction } from '../../../platform/with-transaction.js';
import { withDeferredStorefrontRefresh } from '../storefront-refresh.js';
import { importImage } from './image-fetch.js';
import { applyProductBatch, type ImportMode } from './product-import-apply.js';
import { draftProduct, handleOf, type ProductDraft, type RowError } from './product-rows.js';
import { currencyDigits, mapProductHeader, type ProductColumnMap } from './shopify-columns.js';

export const PRODUCTS_IMPORT_JOB_TYPE = productsImportJob.type;
/** Rows per transaction: big enough to amortise the round trips, small enough to keep memory flat. */
export const PRODUCT_BATCH_ROWS = 1_000;
const MAX_REPORTED_ERRORS = 10_000;
const IMAGE_CONCURRENCY = 4;
/**
 * Products created by this import at which the catalog tables are analyzed, doubling each time
 * (5k, 10k, 20k, …: O(log n) ANALYZEs). A store growing from nothing outruns autovacuum on a busy
 * database, and plans made on statistics that say "a few rows" turn a batch's lookups (the storefront
 * refresh's, the variant match's) into scans of the whole table: the import slowed with its size.
 */
const FIRST_ANALYZE_AT = 5_000;

async function analyzeCatalog(ctx: AppContext): Promise<void> {
  await withTransaction(ctx, async (trx) => {
    await trx.raw('set local statement_timeout = 300000');
    await trx.raw('analyze products, product_variants, storefront_products');
  });
}

export interface ProductImportInput {
  fileKey: string;
  mode: ImportMode;
}

export interface ProductImportCounts {
  totalRows: number;
  products: number;
  created: number;
  updated: number;
  unchanged: number;
  failedProducts: number;
  invalidRows: number;
  images: number;
}

/** Committed with each batch: a retried job resumes after `rowsDone` (a file line), counts exact. */
interface Checkpoint {
  rowsDone: number;
  counts: ProductImportCounts;
  reportedErrors: number;
  ignoredColumns: string[];
}

export interface ProductImportResult extends ProductImportCounts {
  mode: ImportMode;
  ignoredColumns: string[];
  errors: RowError[];
  errorsTruncated: boolean;
}

const emptyCounts = (): ProductImportCounts => ({ totalRows: 0, products: 0, created: 0, updated: 0, unchanged: 0, failedProducts: 0, invalidRows: 0, images: 0 });

/**
 * Stores the batch's images before its transaction (a fetch never holds a transaction open): an
 * image already fetched from that URL for this store is reused, so a second import (or a retry after
 * a kill) fetches nothing again. An image that fails fails only its row.
 */
async function storeImages(ctx: AppContext, storeId: string, drafts: ProductDraft[]): Promise<{ media: Map<string, string>; fetched: number }> {
  const wanted = drafts.filter((d) => !d.failed).flatMap((d) => d.images.map((image) => ({ draft: d, image })));
  const media = new Map<string, string>();
  if (!wanted.length) return { media, fetched: 0 };
  const known = (await ctx.db('media')
    .where({ storeId })
    .whereIn('sourceUrl', [...new Set(wanted.map((w) => w.image.src))])
    .orderBy(['createdAt', 'id'])
    .select('id', 'sourceUrl')) as Array<{ id: string; sourceUrl: string }>;
  for (const row of known) if (!media.has(row.sourceUrl)) media.set(row.sourceUrl, row.id);
  const missing = [...new Map(wanted.filter((w) => !media.has(w.image.src)).map((w) => [w.image.src, w])).values()];
  let fetched = 0;
  const failures = new Map<string, string>();
  for (let i = 0; i < missing.length; i += IMAGE_CONCURRENCY) {
    await Promise.all(
      missing.slice(i, i + IMAGE_CONCURRENCY).map(async ({ image }) => {
        try {
          media.set(image.src, await importImage(ctx, storeId, image.src, image.alt));
          fetched += 1;
        } catch (error) {
          failures.set(image.src, (error as Error).message);
        }
      })
    );
  }
  for (const { draft, image } of wanted) {
    const problem = failures.get(image.src);
    if (problem) draft.errors.push({ row: image.row, column: 'Image Src', message: problem });
  }
  return { media, fetched };
}

/**
 * The import job: checks the file's quoting first (a quote never closed would swallow the rest of
 * the file), then streams it (memory flat), gathers each handle's consecutive rows into a product,
 * and applies the products in batches, each batch with its row errors and the job's checkpoint in
 * one transaction guarded on the previous checkpoint: a worker killed mid-import resumes after the
 * last committed batch, and two runners never both apply one.
 */
export async function runProductImport(
  ctx: AppContext,
  jobId: string,
  options: { signal?: AbortSignal; batchRows?: number; pacer?: BulkPacer } = {}
): Promise<ProductImportResult> {
  const job = await findJobRow(ctx, jobId);
  if (!job || !job.storeId) throw new Error(`import job ${jobId} not found`);
  if (job.status === 'completed' && job.result) return job.result as unknown as ProductImportResult;
  const storeId = job.storeId;
  const input = job.input as unknown as ProductImportInput;
  const batchRows = options.batchRows ?? PRODUCT_BATCH_ROWS;
  const store = (await ctx.db('stores').where({ id: storeId }).first('currency')) as { currency: string } | undefined;
  const digits = currencyDigits(store?.currency ?? 'USD');
  const saved = job.checkpoint as unknown as Checkpoint | null;
  let checkpoint: Checkpoint = saved?.counts ? saved : { rowsDone: 0, counts: emptyCounts(), reportedErrors: 0, ignoredColumns: [] };
  const storage = ctx.storage;
  const open = () =>
    storage.get(input.fileKey).catch((error: unknown) => {
      if (error instanceof AppError && error.status === 404) throw new AppError(422, 'validation_failed', 'The uploaded file is no longer available; upload it again');
      throw error;
    });
  const { dialect, problem } = await findQuoteProblem((await open()).body);
  if (problem) throw new AppError(422, 'validation_failed', `Line ${problem.line}: a quoted field is ${problem.kind === 'unclosed' ? 'never closed' : 'broken by a stray quote'}; nothing was imported`);
  const upload = await open();
  const totalBytes = upload.size || 1;

  let columns: ProductColumnMap | undefined;
  let group: Array<{ record: string[]; row: number }> = [];
  let groupHandle: string | null = null;
  let batch: ProductDraft[] = [];
  let batchRowCount = 0;
  let analyzeAt = FIRST_ANALYZE_AT;
  // Yields the machine to requests while it is busy (BULK_JOB_BUSY_PERCENT; platform/bulk-pacing.ts).
  const pacer = options.pacer ?? new BulkPacer({ busyPercent: ctx.config.bulkJobBusyPercent });

  /**
   * One batch: its images, then its transaction (with its checkpoint), then the ANALYZE when due.
   * Batches are applied one at a time in file order (`flush` waits for the one before), while the
   * parser reads and validates the next batch: the worker's CSV work overlaps PostgreSQL's.
   */
  const applyBatch = async (drafts: ProductDraft[], bytesRead: number) => {
    pacer.begin();
    const { media, fetched } = await storeImages(ctx, storeId, drafts);
    const previous = checkpoint;
    const next = await withTransaction(ctx, async (trx, emit) => {
      // One storefront-document rebuild per changed product of the batch, not one per statement.
      const outcome = await withDeferredStorefrontRefresh(trx, () =>
        applyProductBatch(ctx, trx, emit, { storeId, jobId, userId: job.createdBy ?? null, mode: input.mode }, drafts, media)
      );
      const errors = outcome.errors.sort((a, b) => a.row - b.row);
      const reported = errors.slice(0, Math.max(0, MAX_REPORTED_ERRORS - previous.reportedErrors));
      await insertJobRowErrors(trx, jobId, reported);
      const c = previous.counts;
      const rows = drafts.reduce((n, d) => n + d.rows, 0);
      const state: Checkpoint = {
        rowsDone: drafts[drafts.length - 1]!.lastRow,
        counts: {
          totalRows: c.totalRows + rows,
          products: c.products + drafts.length,
          created: c.created + outcome.created,
          updated: c.updated + outcome.updated,
          unchanged: c.unchanged + outcome.unchanged,
          failedProducts: c.failedProducts + outcome.failedProducts,
          invalidRows: c.invalidRows + new Set(errors.map((e) => e.row)).size,
          images: c.images + fetched
        },
        reportedErrors: previous.reportedErrors + reported.length,
        ignoredColumns: previous.ignoredColumns
      };
      const percent = Math.min(99, Math.floor((bytesRead / totalBytes) * 100));
      // A first batch finds no checkpoint yet (null), later ones the previous batch's last line.
      const updated = await saveJobProgressFrom(trx, jobId, { key: 'rowsDone', expected: previous.rowsDone || null }, {
        checkpoint: state,
        progress: { percent, processedRows: state.counts.totalRows, invalidRows: state.counts.invalidRows }
      });
      if (!updated) throw new Error('another worker is running this import');
      return state;
    });
    checkpoint = next;
    if (checkpoint.counts.created >= analyzeAt) {
      while (analyzeAt <= checkpoint.counts.created) analyzeAt *= 2;
      await analyzeCatalog(ctx);
    }
    // After the commit, nothing held: a pause while the machine is busy (the parser still reads
    // the next batch meanwhile, at the worker's priority).
    await pacer.end(options.signal);
  };
  /** The batch being applied; at most one, so the worker holds two batches at most (memory flat). */
  // Assigned inside callbacks: typed by hand so that TypeScript does not narrow it to null.
  let applying = null as Promise<void> | null;
  const flush = async (bytesRead: number) => {
    if (!batch.length) return;
    if (applying) await applying;
    if (options.signal?.aborted) throw new Error('import aborted');
    const drafts = batch;
    batch = [];
    batchRowCount = 0;
    applying = applyBatch(drafts, bytesRead);
    // Its failure is thrown by the next flush or the end of the file; never unhandled meanwhile.
    applying.catch(() => undefined);
  };

  const closeGroup = () => {
    if (!group.length) return;
    const draft = draftProduct(group, columns!, digits);
    group = [];
    if (draft.lastRow <= checkpoint.rowsDone) return;
    batch.push(draft);
    batchRowCount += draft.rows;
  };

  try {
    await streamCsvRecords(upload.body, dialect, async (records, bytesRead) => {
      for (const { record, line } of records) {
        if (record.length === 1 && record[0]!.trim() === '') continue;
        if (!columns) {
          const mapped = mapProductHeader(record);
          if (!mapped) throw badRequest('The CSV file has no header row with a Handle column');
          columns = mapped;
          if (!checkpoint.ignoredColumns.length) checkpoint = { ...checkpoint, ignoredColumns: mapped.ignored };
          continue;
        }
        const handle = handleOf(record, columns);
        // A row without a handle belongs to the product above it (Shopify leaves it blank on image rows of old exports).
        if (group.length && handle && handle !== groupHandle) closeGroup();
        if (!group.length) groupHandle = handle;
        group.push({ record, row: line });
        if (batchRowCount >= batchRows) await flush(bytesRead);
      }
      if (batchRowCount >= batchRows) await flush(bytesRead);
    });
    if (!columns) throw badRequest('The CSV file is empty');
    closeGroup();
    await flush(totalBytes);
    await applying;
  } finally {
    upload.body.destroy();
    // A parse error while a batch is applied: that batch still commits or fails before the job does.
    await applying?.catch(() => undefined);
  }

  // A bulk load leaves the planner's statistics stale (lists and exports would pick bad plans).
  if (checkpoint.counts.created >= FIRST_ANALYZE_AT) await analyzeCatalog(ctx);
  const errors: RowError[] = (
    await ctx.db('jobRowErrors').where({ jobId }).orderBy(['rowNumber', 'id']).limit(MAX_REPORTED_ERRORS).select('rowNumber', 'columnName', 'message')
  ).map((e: { rowNumber: number; columnName: string; message: string }) => ({ row: e.rowNumber, column: e.columnName, message: e.message }));
  const result: ProductImportResult = {
    mode: input.mode,
    ...checkpoint.counts,
    ignoredColumns: checkpoint.ignoredColumns,
    errors,
    errorsTruncated: checkpoint.reportedErrors >= MAX_REPORTED_ERRORS
  };
  await completeJob(ctx, jobId, result as unknown as Record<string, unknown>);
  await storage.delete(input.fileKey);
  return result;
}
