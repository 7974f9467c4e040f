import Papa from 'papaparse';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { AppContext } from '../../context.js';
import { AppError, badRequest } from '../../errors.js';
import { completeJob, findJobRow } from '../job-runs/job-runs.js';
import { storageFor } from '../storage/index.js';
import { mapHeader, type ColumnMap } from './csv-columns.js';
import { stagingLine, validateRecord, type RowError, type StagedCustomer } from './import-rows.js';

export const CUSTOMERS_IMPORT_JOB_TYPE = 'customers.import';
export const IMPORT_BATCH_SIZE = 5_000;

/** The import's own statement_timeout (the pool's default is for request-sized work). */
const IMPORT_STATEMENT_TIMEOUT_MS = 300_000;
/** Bad rows kept in the job result; `invalidRows` still counts all of them. */
export const MAX_REPORTED_ERRORS = 10_000;

export interface CustomerImportInput {
  fileKey: string;
  dryRun: boolean;
}

export interface ImportCounts {
  totalRows: number;
  validRows: number;
  invalidRows: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Rows whose email appears again later in the file (the later row wins). */
  duplicateRows: number;
}

/**
 * Rows are split into partitions by email (bad rows by row number), each loaded over its own
 * connection, so PostgreSQL works on two batches at once. Every row of one email lands in one
 * partition, in file order: the last row still wins, and partitions never touch the same customer.
 */
export const IMPORT_PARTITIONS = 2;

/**
 * One partition's progress, committed with each of its batches in the same transaction: a retry
 * resumes each partition after its last committed batch. Bad rows go to `job_row_errors` in that
 * transaction too (append-only, so memory and the per-batch write stay flat however many there are).
 */
interface PartitionCheckpoint {
  /** Data rows (1-based, header excluded) of this partition up to here are applied. */
  rowsDone: number;
  counts: ImportCounts;
  reportedErrors: number;
  /** Problems found so far (a bad row may have several); more than reportedErrors once the cap is hit. */
  errorEntries: number;
}

interface Checkpoint {
  partitions: PartitionCheckpoint[];
}

export interface CustomerImportResult extends ImportCounts {
  dryRun: boolean;
  errors: RowError[];
  errorsTruncated: boolean;
}

interface Batch {
  customers: Map<string, StagedCustomer>;
  /** The file line each kept email came from, to name the row a repeat replaces. */
  lines: Map<string, number>;
  records: number;
  lastRow: number;
  invalid: number;
  duplicates: number;
  errors: RowError[];
  bytesRead: number;
}

const ANALYZE_AFTER_CREATED = 10_000;

const emptyCounts = (): ImportCounts => ({ totalRows: 0, validRows: 0, invalidRows: 0, created: 0, updated: 0, unchanged: 0, duplicateRows: 0 });
const emptyPartition = (): PartitionCheckpoint => ({ rowsDone: 0, counts: emptyCounts(), reportedErrors: 0, errorEntries: 0 });
const emptyCheckpoint = (): Checkpoint => ({ partitions: Array.from({ length: IMPORT_PARTITIONS }, emptyPartition) });

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

const unclosedQuote = (line: number) =>
  new AppError(422, 'validation_failed', `Line ${line}: a quoted field is never closed; the file was not imported past it`, [
    { path: `line ${line}`, message: 'a quote (") opens a field that is never closed' }
  ]);

const newBatch = (): Batch => ({ customers: new Map(), lines: new Map(), records: 0, lastRow: 0, invalid: 0, duplicates: 0, errors: [], bytesRead: 0 });

const STAGE_TABLE = `create temp table if not exists customer_import_stage (
  email text not null, first_name text, last_name text, phone text, tags text, note text, email_marketing text
) on commit delete rows`;

/**
 * One statement per batch. Empty cells keep what is stored; a customer who unsubscribed is only
 * re-subscribed when the row says `subscribed` explicitly and the store allows it. Rows whose values
 * would not change are not rewritten (and count as unchanged).
 */
function upsertSql(allowResubscribe: boolean): string {
  const marketing = `(case
      when excluded.email_marketing_source is null then c.email_marketing
      when c.email_marketing = 'unsubscribed' and not (excluded.email_marketing = 'subscribed' and ${allowResubscribe ? 'true' : 'false'}) then c.email_marketing
      else excluded.email_marketing end)`;
  const fields = {
    first_name: 'coalesce(excluded.first_name, c.first_name)',
    last_name: 'coalesce(excluded.last_name, c.last_name)',
    phone: 'coalesce(excluded.phone, c.phone)',
    tags: 'case when cardinality(excluded.tags) > 0 then excluded.tags else c.tags end',
    note: 'coalesce(excluded.note, c.note)',
    email_marketing: marketing
  };
  const changedMarketing = `${marketing} is distinct from c.email_marketing`;
  return `with up as (
    insert into customers as c (store_id, email, first_name, last_name, phone, tags, note, source,
        email_marketing, email_marketing_updated_at, email_marketing_source)
      select $1, s.email, s.first_name, s.last_name, s.phone, coalesce(string_to_array(s.tags, E'\\x1f'), '{}'), s.note, 'import',
        coalesce(s.email_marketing, 'not_subscribed'),
        case when s.email_marketing is not null then now() end,
        case when s.email_marketing is not null then 'import' end
      from customer_import_stage s
    on conflict (store_id, lower(email)) do update set
      ${Object.entries(fields).map(([column, expression]) => `${column} = ${expression}`).join(',\n      ')},
      email_marketing_updated_at = case when ${changedMarketing} then now() else c.email_marketing_updated_at end,
      email_marketing_source = case when ${changedMarketing} then 'import' else c.email_marketing_source end,
      email_marketing_ip = case when ${changedMarketing} then null else c.email_marketing_ip end,
      updated_at = now()
    where (c.first_name, c.last_name, c.phone, c.tags, c.note, c.email_marketing)
      is distinct from (${Object.values(fields).join(', ')})
    returning (xmax = 0) as inserted
  )
  select count(*) filter (where inserted)::int as created, count(*) filter (where not inserted)::int as updated from up`;
}

export interface RunImportOptions {
  batchSize?: number;
  /** Aborting stops the import between batches (what a worker shutdown or crash looks like). */
  signal?: AbortSignal;
}

/**
 * The import job's work: streams the stored upload through papaparse (memory stays flat whatever
 * the size), validates each record, and loads each batch with COPY into a staging table and one
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
  const upload = await storage.get(input.fileKey).catch((error: unknown) => {
    // Retrying cannot bring a vanished upload back: fail the job for good with a clear reason.
    if (error instanceof AppError && error.status === 404) {
      throw new AppError(422, 'validation_failed', 'The uploaded file is no longer available; upload it again');
    }
    throw error;
  });
  const totalBytes = upload.size || 1;

  const connections: pg.Client[] = [];
  const inflight: Array<Promise<void> | null> = [];
  // Ready batches are handed to the partitions by ONE chain, in file order: a second chunk parsed
  // while earlier batches still wait for their partition must queue behind them, never beside them.
  let dispatching: Promise<void> = Promise.resolve();
  try {
    for (let p = 0; p < IMPORT_PARTITIONS; p++) {
      const connection = (await ctx.db.client.acquireConnection()) as pg.Client;
      connections.push(connection);
      if (!input.dryRun) await connection.query(STAGE_TABLE);
    }
    const target = { sql, storeId, jobId, dryRun: input.dryRun, totalBytes };
    const flush = async (partition: number, batch: Batch) => {
      if (options.signal?.aborted) throw new Error('import aborted');
      const next = await applyBatch(connections[partition]!, target, partition, batch, checkpoint);
      checkpoint.partitions[partition] = next;
    };
    /** Starts a partition's batch once that partition's previous batch is done (one in flight each). */
    const enqueueFlush = async (partition: number, batch: Batch) => {
      await inflight[partition];
      const running = flush(partition, batch);
      running.catch(() => undefined);
      inflight[partition] = running;
    };

    let columns: ColumnMap | undefined;
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
        // Blank lines are parsed (and skipped in take) so that line numbers stay the file's.
        skipEmptyLines: false,
        chunk: (results: Papa.ParseResult<string[]>) => {
          try {
            // papaparse reports a quote that is never closed but keeps going, swallowing the rest
            // of the file into one field: the import fails instead, naming the line it starts on.
            const unclosed = new Set(results.errors.filter((e) => e.type === 'Quotes').map((e) => e.row));
            results.data.forEach((record, index) => {
              if (unclosed.has(index)) throw unclosedQuote(nextLine);
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
    await ctx.db.transaction(async (trx) => {
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
  await storage.delete(input.fileKey);
  return result;
}

const progressPercent = (bytesRead: number, totalBytes: number) => Math.min(99, Math.floor((bytesRead / totalBytes) * 100));

interface BatchTarget {
  sql: string;
  storeId: string;
  jobId: string;
  dryRun: boolean;
  totalBytes: number;
}

/**
 * One transaction per batch: COPY into the staging table + one upsert (or, for a dry run, only a
 * count of the emails that exist), the batch's bad rows, and the partition's checkpoint with the
 * progress. The partition's checkpoint is guarded on its previous value, so two runners of one job
 * never both apply a batch; partitions update their own entry of the shared checkpoint.
 */
async function applyBatch(
  connection: pg.Client,
  target: BatchTarget,
  partition: number,
  batch: Batch,
  checkpoint: Checkpoint
): Promise<PartitionCheckpoint> {
  const previous = checkpoint.partitions[partition]!;
  // Not waiting for the WAL flush is safe: a batch lost in a crash is lost together with its
  // checkpoint, and the retried job applies it again.
  // A batch (COPY + upsert of thousands of rows) may outlast the pool's statement_timeout.
  await connection.query(`begin; set local synchronous_commit = off; set local statement_timeout = ${IMPORT_STATEMENT_TIMEOUT_MS}`);
  try {
    let applied = { created: 0, updated: 0 };
    if (target.dryRun) {
      applied = await countExisting(connection, target.storeId, batch);
    } else if (batch.customers.size > 0) {
      const copy = connection.query(copyFrom('copy customer_import_stage (email, first_name, last_name, phone, tags, note, email_marketing) from stdin (format csv)'));
      let lines = '';
      for (const customer of batch.customers.values()) lines += stagingLine(customer);
      await new Promise<void>((resolve, reject) => {
        copy.on('error', reject);
        copy.on('finish', resolve);
        copy.end(lines);
      });
      const result = await connection.query(target.sql, [target.storeId]);
      applied = { created: result.rows[0].created, updated: result.rows[0].updated };
    }
    const reported = batch.errors.slice(0, Math.max(0, MAX_REPORTED_ERRORS / IMPORT_PARTITIONS - previous.reportedErrors));
    if (reported.length > 0) {
      await connection.query(
        `insert into job_row_errors (job_id, row_number, column_name, message)
         select $1, * from unnest($2::int[], $3::text[], $4::text[])`,
        [target.jobId, reported.map((e) => e.row), reported.map((e) => e.column), reported.map((e) => e.message)]
      );
    }
    const next = nextCheckpoint(previous, batch, applied, reported.length);
    // Progress sums every partition's counts from the row as it stands (the other partition may
    // have committed meanwhile), in the same statement that writes this partition's entry.
    const merged = `jsonb_set(coalesce(checkpoint, $5::jsonb), array['partitions', $6::text], $2::jsonb)`;
    const summed = (field: string) => `(select coalesce(sum((e->'counts'->>'${field}')::int), 0) from jsonb_array_elements(${merged}->'partitions') e)`;
    const saved = await connection.query(
      `update jobs set checkpoint = ${merged},
         progress = jsonb_build_object('percent', $3::int, 'processedRows', ${summed('totalRows')}, 'invalidRows', ${summed('invalidRows')}),
         updated_at = now()
       where id = $1 and coalesce((checkpoint #>> array['partitions', $6::text, 'rowsDone'])::int, 0) = $4::int`,
      [target.jobId, JSON.stringify(next), progressPercent(batch.bytesRead, target.totalBytes), previous.rowsDone, JSON.stringify(emptyCheckpoint()), String(partition)]
    );
    if (saved.rowCount !== 1) throw new Error('another worker is running this import');
    await connection.query('commit');
    return next;
  } catch (error) {
    await connection.query('rollback').catch(() => undefined);
    throw error;
  }
}

function nextCheckpoint(checkpoint: PartitionCheckpoint, batch: Batch, applied: { created: number; updated: number }, reported: number): PartitionCheckpoint {
  const counts = checkpoint.counts;
  return {
    rowsDone: batch.lastRow - 1,
    counts: {
      totalRows: counts.totalRows + batch.records,
      validRows: counts.validRows + batch.records - batch.invalid,
      invalidRows: counts.invalidRows + batch.invalid,
      created: counts.created + applied.created,
      updated: counts.updated + applied.updated,
      unchanged: counts.unchanged + batch.customers.size - applied.created - applied.updated,
      duplicateRows: counts.duplicateRows + batch.duplicates
    },
    reportedErrors: checkpoint.reportedErrors + reported,
    errorEntries: checkpoint.errorEntries + batch.errors.length
  };
}

/** Dry run: what the batch would do, from which of its emails already exist. */
async function countExisting(connection: pg.Client, storeId: string, batch: Batch) {
  if (batch.customers.size === 0) return { created: 0, updated: 0 };
  const result = await connection.query('select count(*)::int as n from customers where store_id = $1 and lower(email) = any($2::text[])', [
    storeId,
    [...batch.customers.keys()]
  ]);
  const existing = result.rows[0].n as number;
  return { created: batch.customers.size - existing, updated: existing };
}
