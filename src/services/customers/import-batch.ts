import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { deliveryJobSqlLiterals } from '../webhooks/index.js';
import { INSERT_JOB_ROW_ERRORS_SQL, savePartitionCheckpoint } from '../job-history/index.js';
import { customerJsonSql } from './customers.js';
import { stagingLine, type RowError, type StagedCustomer } from './import-rows.js';

/** The import's own statement_timeout (the pool's default is for request-sized work). */
export const IMPORT_STATEMENT_TIMEOUT_MS = 300_000;
/** Bad rows kept in the job result; `invalidRows` still counts all of them. */
export const MAX_REPORTED_ERRORS = 10_000;

/**
 * Rows are split into partitions by email (bad rows by row number), each loaded over its own
 * connection, so PostgreSQL works on two batches at once. Every row of one email lands in one
 * partition, in file order: the last row still wins, and partitions never touch the same customer.
 */
export const IMPORT_PARTITIONS = 2;

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
 * One partition's progress, committed with each of its batches in the same transaction: a retry
 * resumes each partition after its last committed batch. Bad rows go to `job_row_errors` in that
 * transaction too (append-only, so memory and the per-batch write stay flat however many there are).
 */
export interface PartitionCheckpoint {
  /** Data rows (1-based, header excluded) of this partition up to here are applied. */
  rowsDone: number;
  counts: ImportCounts;
  reportedErrors: number;
  /** Problems found so far (a bad row may have several); more than reportedErrors once the cap is hit. */
  errorEntries: number;
}

export interface Checkpoint {
  partitions: PartitionCheckpoint[];
}

export interface Batch {
  customers: Map<string, StagedCustomer>;
  /** The file line each kept email came from, to name the row a repeat replaces. */
  lines: Map<string, number>;
  records: number;
  lastRow: number;
  invalid: number;
  /** Repeats found within the batch (repeats of earlier batches are found in applyBatch). */
  duplicates: number;
  errors: RowError[];
  bytesRead: number;
}

export const emptyCounts = (): ImportCounts => ({ totalRows: 0, validRows: 0, invalidRows: 0, created: 0, updated: 0, unchanged: 0, duplicateRows: 0 });
const emptyPartition = (): PartitionCheckpoint => ({ rowsDone: 0, counts: emptyCounts(), reportedErrors: 0, errorEntries: 0 });
export const emptyCheckpoint = (): Checkpoint => ({ partitions: Array.from({ length: IMPORT_PARTITIONS }, emptyPartition) });
export const newBatch = (): Batch => ({ customers: new Map(), lines: new Map(), records: 0, lastRow: 0, invalid: 0, duplicates: 0, errors: [], bytesRead: 0 });

export const STAGE_TABLE = `create temp table if not exists customer_import_stage (
  email text not null, first_name text, last_name text, phone text, tags text, note text, email_marketing text, row_number int not null
) on commit delete rows`;

/**
 * Records the batch's emails with their lines and yields the rows whose email an earlier batch of
 * the same import already applied, with the line that one came from. Each email of the import is
 * kept once in `customer_import_emails` (job id, email, its latest line), written in the batch's
 * transaction: the check holds across batches and across a retry's resume point, while the worker's
 * memory holds no more than one batch. A repeat's update keeps the line it replaces in
 * `previous_row_number`, so one index pass both records and finds repeats (RETURNING shows only new
 * values before PostgreSQL 18).
 */
const REPEATS_CTE = `remembered as (
    insert into customer_import_emails as e (job_id, email, row_number)
      select $2, s.email, s.row_number from customer_import_stage s
    on conflict (job_id, email) do update set row_number = excluded.row_number, previous_row_number = e.row_number
    returning e.email, e.row_number, e.previous_row_number
  ), earlier as (
    select email, row_number, previous_row_number as earlier_row from remembered where previous_row_number is not null
  )`;

const REPEAT_COLUMNS = `(select coalesce(array_agg(row_number order by row_number), '{}') from earlier) as repeat_rows,
  (select coalesce(array_agg(earlier_row order by row_number), '{}') from earlier) as earlier_rows`;

/**
 * One statement per batch. Empty cells keep what is stored; a customer who unsubscribed is only
 * re-subscribed when the row says `subscribed` explicitly and the store allows it. Rows whose values
 * would not change are not rewritten (and count as unchanged). A row repeating an email of an earlier
 * batch is still applied (the last row wins) but counts as a duplicate, as a repeat within a batch does.
 */
/**
 * Webhooks: one customer.created / customer.updated event per customer the batch created or changed
 * (unchanged rows send nothing), written by the batch's own statement, so the events commit with
 * the batch and a retried batch writes them again only if it applies again.
 */
const LISTENS = `exists (select 1 from webhook_subscriptions w where w.store_id = $1 and w.enabled and w.topics && array['customer.created', 'customer.updated'])`;

export function upsertSql(allowResubscribe: boolean): string {
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
  return `with ${REPEATS_CTE}, up as (
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
    returning lower(c.email) as email, (xmax = 0) as inserted, c.id,
      -- The customer as the admin API shows it, only when the store listens (an init plan, read once).
      case when (${LISTENS}) then ${customerJsonSql('c')} end as data
  ), hooks as (
    select record_webhook_events($1, t.topic,
             coalesce((select jsonb_agg(jsonb_build_object('resourceId', up.id, 'data', up.data)) from up where up.inserted = (t.topic = 'customer.created')), '[]'::jsonb),
             ${deliveryJobSqlLiterals()}) as deliveries
      from unnest(array['customer.created', 'customer.updated']) as t(topic)
     where ${LISTENS}
  ), woken as (
    select pg_notify('outbox', '') from hooks having sum(hooks.deliveries) > 0
  )
  select count(*) filter (where inserted)::int as created, count(*) filter (where not inserted)::int as updated, ${REPEAT_COLUMNS},
         (select count(*) from woken) as relay_woken
    from up where not exists (select 1 from earlier where earlier.email = up.email)`;
}

/** Dry run: what the batch would do, from which of its emails already exist (repeats aside). */
const DRY_RUN_SQL = `with ${REPEATS_CTE}, fresh as (
    select exists (select 1 from customers c where c.store_id = $1 and lower(c.email) = s.email) as existing
      from customer_import_stage s
     where not exists (select 1 from earlier where earlier.email = s.email)
  )
  select count(*) filter (where not existing)::int as created, count(*) filter (where existing)::int as updated, ${REPEAT_COLUMNS}
    from fresh`;

const progressPercent = (bytesRead: number, totalBytes: number) => Math.min(99, Math.floor((bytesRead / totalBytes) * 100));

export interface BatchTarget {
  sql: string;
  storeId: string;
  jobId: string;
  dryRun: boolean;
  totalBytes: number;
  /** The email column's header as written in the file, for repeat warnings. */
  emailColumn: string;
}

export const repeatWarning = (row: number, column: string, earlierRow: number): RowError => ({
  row,
  column,
  message: `warning: repeats the email of row ${earlierRow}; this row replaces it`
});

/**
 * One transaction per batch: COPY into the staging table + one upsert (or, for a dry run, only a
 * count of the emails that exist), the batch's bad rows and repeat warnings, and the partition's
 * checkpoint with the progress. The partition's checkpoint is guarded on its previous value, so two
 * runners of one job never both apply a batch; partitions update their own entry of the shared
 * checkpoint.
 */
export async function applyBatch(
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
    let errors = batch.errors;
    let repeats = 0;
    if (batch.customers.size > 0) {
      const copy = connection.query(
        copyFrom('copy customer_import_stage (email, first_name, last_name, phone, tags, note, email_marketing, row_number) from stdin (format csv)')
      );
      let lines = '';
      for (const customer of batch.customers.values()) lines += stagingLine(customer, batch.lines.get(customer.email)!);
      await new Promise<void>((resolve, reject) => {
        copy.on('error', reject);
        copy.on('finish', resolve);
        copy.end(lines);
      });
      const result = await connection.query(target.dryRun ? DRY_RUN_SQL : target.sql, [target.storeId, target.jobId]);
      const row = result.rows[0] as { created: number; updated: number; repeat_rows: number[]; earlier_rows: number[] };
      applied = { created: row.created, updated: row.updated };
      repeats = row.repeat_rows.length;
      if (repeats > 0) errors = [...errors, ...row.repeat_rows.map((line, i) => repeatWarning(line, target.emailColumn, row.earlier_rows[i]!))];
    }
    const reported = errors.slice(0, Math.max(0, MAX_REPORTED_ERRORS / IMPORT_PARTITIONS - previous.reportedErrors));
    if (reported.length > 0) {
      await connection.query(
        INSERT_JOB_ROW_ERRORS_SQL,
        [target.jobId, reported.map((e) => e.row), reported.map((e) => e.column), reported.map((e) => e.message)]
      );
    }
    const next = nextCheckpoint(previous, batch, { ...applied, repeats, errors: errors.length }, reported.length);
    const saved = await savePartitionCheckpoint(connection, {
      jobId: target.jobId,
      partition,
      checkpoint: next,
      percent: progressPercent(batch.bytesRead, target.totalBytes),
      rowsDoneBefore: previous.rowsDone,
      empty: emptyCheckpoint()
    });
    if (saved.rowCount !== 1) throw new Error('another worker is running this import');
    await connection.query('commit');
    return next;
  } catch (error) {
    await connection.query('rollback').catch(() => undefined);
    throw error;
  }
}

interface Applied {
  created: number;
  updated: number;
  /** Rows repeating an email of an earlier batch. */
  repeats: number;
  /** Problems of the batch, its repeat warnings included. */
  errors: number;
}

function nextCheckpoint(checkpoint: PartitionCheckpoint, batch: Batch, applied: Applied, reported: number): PartitionCheckpoint {
  const counts = checkpoint.counts;
  return {
    rowsDone: batch.lastRow - 1,
    counts: {
      totalRows: counts.totalRows + batch.records,
      validRows: counts.validRows + batch.records - batch.invalid,
      invalidRows: counts.invalidRows + batch.invalid,
      created: counts.created + applied.created,
      updated: counts.updated + applied.updated,
      unchanged: counts.unchanged + batch.customers.size - applied.repeats - applied.created - applied.updated,
      duplicateRows: counts.duplicateRows + batch.duplicates + applied.repeats
    },
    reportedErrors: checkpoint.reportedErrors + reported,
    errorEntries: checkpoint.errorEntries + applied.errors
  };
}
