import Papa from 'papaparse';
import type pg from 'pg';
import type { AppContext } from '../../context.js';
import { AppError, badRequest } from '../../errors.js';
import { completeJob, findJobRow } from '../job-history/job-runs.js';
import { storageFor } from '../storage/index.js';
import { mapHeader, type ColumnMap } from './csv-columns.js';
import { findQuoteProblem, type QuoteProblem } from '../csv/quotes.js';
import {
  applyBatch,
  emptyCheckpoint,
  emptyCounts,
  IMPORT_PARTITIONS,
  IMPORT_STATEMENT_TIMEOUT_MS,
  MAX_REPORTED_ERRORS,
  newBatch,
  STAGE_TABLE,
  upsertSql,
  type Batch,
  type Checkpoint,
  type ImportCounts,
  type PartitionCheckpoint
} from './import-batch.js';
import { validateRecord, type RowError, type StagedCustomer } from './import-rows.js';
import { withTransaction } from '../with-transaction.js';

export const CUSTOMERS_IMPORT_JOB_TYPE = 'customers.import';
export const IMPORT_BATCH_SIZE = 5_000;

export interface CustomerImportInput {
  fileKey: string;
  dryRun: boolean;
}

export interface CustomerImportResult extends ImportCounts {
  dryRun: boolean;
  errors: RowError[];
  errorsTruncated: boolean;
}

const ANALYZE_AFTER_CREATED = 10_000;

function sumCounts(partitions: PartitionCheckpoint[]): ImportCounts {
  const total = emptyCounts();
  for (const partition of partitions) {
    for (const key of Object.keys(total) as Array<keyof ImportCounts>) total[key] += partition.counts[key];
  }
  return total;
}

/** FNV-1a: a cheap, stable spread of emails over the partitions. */
function partitionOfEmail(email: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < email.length; i++) {
    hash ^= email.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % IMPORT_PARTITIONS;
}
/** Line breaks inside a record's quoted fields (each one moves the next record down a line). */
function newlinesIn(record: string[]): number {
  let count = 0;
  for (const field of record) for (let i = field.indexOf('\n'); i >= 0; i = field.indexOf('\n', i + 1)) count += 1;
  return count;
}

const quoteProblem = ({ line, kind }: QuoteProblem) =>
  kind === 'unclosed'
    ? new AppError(422, 'validation_failed', `Line ${line}: a quoted field is never closed; nothing was imported`, [
        { path: `line ${line}`, message: 'a quote (") opens a field that is never closed' }
      ])
    : new AppError(422, 'validation_failed', `Line ${line}: a quoted field has a quote (") that is neither doubled nor closing it; nothing was imported`, [
        { path: `line ${line}`, message: 'a quote inside a quoted field must be written twice ("")' }
      ]);

const unclosedPastCheck = (line: number) =>
  new AppError(422, 'validation_failed', `Line ${line}: a quoted field is never closed; the file was not imported past it`, [
    { path: `line ${line}`, message: 'a quote (") opens a field that is never closed' }
  ]);

/**
 * Drops what imports no longer running remembered (a run failed for good, or its store deleted,
 * leaves its emails behind). The table holds only running imports' emails, so this visits its
 * distinct job ids through the primary key (one probe each) instead of reading it.
 */
async function forgetFinishedImports(ctx: AppContext, jobId: string): Promise<void> {
  await ctx.db.raw(
    `with recursive imports as (
       (select job_id from customer_import_emails order by job_id limit 1)
       union all
       select (select e.job_id from customer_import_emails e where e.job_id > imports.job_id order by e.job_id limit 1)
         from imports where imports.job_id is not null
     )
     delete from customer_import_emails where job_id in (
       select i.job_id from imports i
        where i.job_id is not null and i.job_id <> ?
          and not exists (select 1 from jobs j where j.id = i.job_id and j.status in ('queued', 'active')))`,
    [jobId]
  );
}

export interface RunImportOptions {
  batchSize?: number;
  /** Aborting stops the import between batches (what a worker shutdown or crash looks like). */
  signal?: AbortSignal;
}

/**
 * The import job's work: first reads the whole stored upload once for its quoting (a quote that
 * never closes would swallow the rest of the file into one field, so such a file fails before any
 * row is written), then streams it through papaparse (memory stays flat whatever the size),
 * validates each record, and loads each batch with COPY into a staging table and one
 * INSERT ... ON CONFLICT. The batch and the job's checkpoint commit together, so a retried job skips
 * the rows already applied and the counts stay exact.
 */
export async function runCustomerImport(ctx: AppContext, jobId: string, options: RunImportOptions = {}): Promise<CustomerImportResult> {
  const job = await findJobRow(ctx, jobId);
  if (!job || !job.storeId) throw new Error(`import job ${jobId} not found`);
  if (job.status === 'completed' && job.result) return job.result as unknown as CustomerImportResult;
  const storeId = job.storeId;
  const input = job.input as unknown as CustomerImportInput;
  const batchSize = options.batchSize ?? IMPORT_BATCH_SIZE;
  const store = await ctx.db('stores').where({ id: storeId }).first('allowImportResubscribe');
  const sql = upsertSql(Boolean(store?.allowImportResubscribe));

  const saved = job.checkpoint as unknown as Partial<Checkpoint> | null;
  const checkpoint: Checkpoint = saved?.partitions?.length === IMPORT_PARTITIONS ? (saved as Checkpoint) : emptyCheckpoint();
  const resumeAfter = checkpoint.partitions.map((partition) => partition.rowsDone);
  const storage = storageFor(ctx);
  const openUpload = () =>
    storage.get(input.fileKey).catch((error: unknown) => {
      // Retrying cannot bring a vanished upload back: fail the job for good with a clear reason.
      if (error instanceof AppError && error.status === 404) {
        throw new AppError(422, 'validation_failed', 'The uploaded file is no longer available; upload it again');
      }
      throw error;
    });
  const { dialect, problem } = await findQuoteProblem((await openUpload()).body);
  if (problem) throw quoteProblem(problem);
  await forgetFinishedImports(ctx, jobId);
  const upload = await openUpload();
  const totalBytes = upload.size || 1;

  const connections: pg.Client[] = [];
  const inflight: Array<Promise<void> | null> = [];
  // Ready batches are handed to the partitions by ONE chain, in file order: a second chunk parsed
  // while earlier batches still wait for their partition must queue behind them, never beside them.
  let dispatching: Promise<void> = Promise.resolve();
  let columns: ColumnMap | undefined;
  try {
    for (let p = 0; p < IMPORT_PARTITIONS; p++) {
      const connection = (await ctx.db.client.acquireConnection()) as pg.Client;
      connections.push(connection);
      await connection.query(STAGE_TABLE);
    }
    const target = { sql, storeId, jobId, dryRun: input.dryRun, totalBytes };
    const flush = async (partition: number, batch: Batch) => {
      if (options.signal?.aborted) throw new Error('import aborted');
      const emailColumn = columns?.names.email ?? 'email';
      const next = await applyBatch(connections[partition]!, { ...target, emailColumn }, partition, batch, checkpoint);
      checkpoint.partitions[partition] = next;
    };
    /** Starts a partition's batch once that partition's previous batch is done (one in flight each). */
    const enqueueFlush = async (partition: number, batch: Batch) => {
      await inflight[partition];
      const running = flush(partition, batch);
      running.catch(() => undefined);
      inflight[partition] = running;
    };

    let headerLength = 0;
    // Row numbers are the file's line numbers (1-based, blank lines counted, a quoted newline inside
    // a field counted too), so a spreadsheet user finds the row the report names.
    let nextLine = 1;
    let rowNumber = 0;
    const batches = connections.map(() => newBatch());
    const ready: Array<[number, Batch]> = [];
    const take = (record: string[]) => {
      rowNumber = nextLine;
      nextLine += 1 + newlinesIn(record);
      if (record.length === 1 && record[0]!.trim() === '') return;
      if (columns === undefined) {
        const mapped = mapHeader(record);
        if (!mapped) throw badRequest('The CSV file has no header row with an Email column');
        columns = mapped;
        headerLength = record.length;
        return;
      }
      const staged: StagedCustomer | RowError[] =
        record.length < headerLength
          ? [{ row: rowNumber, column: '*', message: `the row has ${record.length} of the header's ${headerLength} columns` }]
          : validateRecord(record, rowNumber, columns);
      const partition = Array.isArray(staged) ? rowNumber % IMPORT_PARTITIONS : partitionOfEmail(staged.email);
      if (rowNumber - 1 <= resumeAfter[partition]!) return;
      const batch = batches[partition]!;
      batch.records += 1;
      batch.lastRow = rowNumber;
      if (Array.isArray(staged)) {
        batch.invalid += 1;
        batch.errors.push(...staged);
      } else {
        if (batch.customers.delete(staged.email)) {
          batch.duplicates += 1;
          const replaced = batch.lines.get(staged.email);
          batch.errors.push({ row: rowNumber, column: columns.names.email ?? 'email', message: `warning: repeats the email of row ${replaced}; this row replaces it` });
        }
        batch.customers.set(staged.email, staged);
        batch.lines.set(staged.email, rowNumber);
      }
      if (batch.records >= batchSize) {
        ready.push([partition, batch]);
        batches[partition] = newBatch();
      }
    };

    // papaparse parses each chunk of the file synchronously as it arrives. When batches are ready
    // the file is paused until each can start (its partition's previous batch written), so parsing
    // stays at most one batch per partition ahead (memory flat) while parsing and both partitions'
    // database work overlap.
    const file = upload.body;
    let bytesRead = 0;
    file.on('data', (chunk: string) => {
      bytesRead += Buffer.byteLength(chunk);
    });
    file.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      const fail = (error: unknown) => {
        file.destroy();
        reject(error);
      };
      Papa.parse(file as unknown as never, {
        // The dialect the quote check read the file with, so both passes split it alike.
        delimiter: dialect.delimiter,
        newline: dialect.newline,
        // Blank lines are parsed (and skipped in take) so that line numbers stay the file's.
        skipEmptyLines: false,
        chunk: (results: Papa.ParseResult<string[]>) => {
          try {
            // The quote check has passed the file, which follows papaparse's rules; should they
            // ever disagree, the import still stops at the record instead of swallowing the file.
            const unclosed = new Set(results.errors.filter((e) => e.type === 'Quotes').map((e) => e.row));
            results.data.forEach((record, index) => {
              if (unclosed.has(index)) throw unclosedPastCheck(nextLine);
              take(record);
            });
          } catch (error) {
            fail(error);
            return;
          }
          if (ready.length === 0) return;
          file.pause();
          const started = ready.splice(0);
          const readSoFar = bytesRead;
          const link = dispatching.then(async () => {
            for (const [partition, batch] of started) {
              batch.bytesRead = readSoFar;
              await enqueueFlush(partition, batch);
            }
          });
          dispatching = link;
          // Read on only once the chain is idle: at most one batch per partition is parsed ahead.
          link.then(() => {
            if (dispatching === link) file.resume();
          }, fail);
        },
        complete: () => resolve(),
        error: (error: Error) => fail(error)
      } as unknown as never);
    });
    if (columns === undefined) throw badRequest('The CSV file is empty');
    // Every batch handed out while parsing must be started before the tail batches and the totals.
    await dispatching;
    await Promise.all(
      batches.map(async (batch, partition) => {
        if (batch.records === 0) return;
        batch.bytesRead = totalBytes;
        await enqueueFlush(partition, batch);
      })
    );
    await Promise.all(inflight);
  } finally {
    upload.body.destroy();
    // Let a batch still running (after a failure elsewhere) settle before its connection goes back.
    await dispatching.catch(() => undefined);
    await Promise.allSettled(inflight);
    for (const connection of connections) ctx.db.client.releaseConnection(connection);
  }

  const counts = sumCounts(checkpoint.partitions);
  // A bulk load leaves the planner's statistics stale (lists and exports would pick bad plans).
  if (!input.dryRun && counts.created >= ANALYZE_AFTER_CREATED) {
    await withTransaction(ctx, async (trx) => {
      await trx.raw(`set local statement_timeout = ${IMPORT_STATEMENT_TIMEOUT_MS}`);
      await trx.raw('analyze customers');
    });
  }
  const errors: RowError[] = (
    await ctx.db('jobRowErrors').where({ jobId }).orderBy(['rowNumber', 'id']).limit(MAX_REPORTED_ERRORS).select('rowNumber', 'columnName', 'message')
  ).map((e: { rowNumber: number; columnName: string; message: string }) => ({ row: e.rowNumber, column: e.columnName, message: e.message }));
  const result: CustomerImportResult = {
    dryRun: input.dryRun,
    ...counts,
    errors,
    errorsTruncated: checkpoint.partitions.some((partition) => partition.reportedErrors < partition.errorEntries)
  };
  await completeJob(ctx, jobId, result as unknown as Record<string, unknown>);
  await ctx.db('customerImportEmails').where({ jobId }).delete();
  await storage.delete(input.fileKey);
  return result;
}
