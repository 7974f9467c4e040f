import { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { completeJob, findJobRow, reportJobProgress } from '../job-history/job-runs.js';
import { storageFor } from '../storage/index.js';
import { EXPORT_COLUMNS } from './csv-columns.js';
import { csvLine, TAG_SEPARATOR } from '../csv/format.js';

export const CUSTOMERS_EXPORT_JOB_TYPE = 'customers.export';
const PAGE_SIZE = 5_000;

export interface CustomerExportResult {
  rows: number;
  bytes: number;
  fileName: string;
}

interface ExportRow {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  tags: string[];
  note: string | null;
  emailMarketing: string;
  ordersCount: number;
  totalSpent: number;
  lastOrderAt: Date | null;
  createdAt: Date;
  cursorAt: string;
}

export const exportFileKey = (storeId: string, jobId: string) => `exports/${storeId}/${jobId}.csv`;

/**
 * The export job's work: keyset pages of the store's customers (oldest first, on the list index)
 * streamed as CSV into storage; every cell formula-guarded. Storage writes the object whole or not
 * at all, so a retry simply starts over.
 */
export async function runCustomerExport(ctx: AppContext, jobId: string): Promise<CustomerExportResult> {
  const job = await findJobRow(ctx, jobId);
  if (!job || !job.storeId) throw new Error(`export job ${jobId} not found`);
  if (job.status === 'completed' && job.result) return job.result as unknown as CustomerExportResult;
  const storeId = job.storeId;
  const key = exportFileKey(storeId, jobId);
  const total = Number((await ctx.db('customers').where({ storeId }).count<{ count: number }[]>('* as count'))[0]?.count ?? 0);
  let rows = 0;
  let bytes = 0;

  async function* csv(): AsyncGenerator<string> {
    const header = csvLine([...EXPORT_COLUMNS]);
    bytes += Buffer.byteLength(header);
    yield header;
    let after: [string, string] | null = null;
    for (;;) {
      const result = await ctx.db.raw(
        `select id, created_at::text as cursor_at, email, first_name, last_name, phone, tags, note, email_marketing, orders_count, total_spent, last_order_at, created_at
           from customers
          where store_id = ? ${after ? 'and (created_at, id) > (?::timestamptz, ?)' : ''}
          order by created_at, id
          limit ?`,
        after ? [storeId, after[0], after[1], PAGE_SIZE] : [storeId, PAGE_SIZE]
      );
      const page = result.rows as ExportRow[];
      if (page.length === 0) return;
      let chunk = '';
      for (const row of page) {
        chunk += csvLine([
          row.email,
          row.firstName,
          row.lastName,
          row.phone,
          (row.tags ?? []).join(TAG_SEPARATOR),
          row.note,
          row.emailMarketing,
          row.ordersCount,
          Number(row.totalSpent),
          row.lastOrderAt ? row.lastOrderAt.toISOString() : null,
          row.createdAt.toISOString()
        ]);
      }
      bytes += Buffer.byteLength(chunk);
      yield chunk;
      rows += page.length;
      const last = page[page.length - 1]!;
      after = [last.cursorAt, last.id];
      await reportJobProgress(ctx, jobId, { percent: total ? Math.min(99, Math.floor((rows / total) * 100)) : 99, processedRows: rows });
      if (page.length < PAGE_SIZE) return;
    }
  }

  await storageFor(ctx).put(key, Readable.from(csv()), { contentType: 'text/csv' });
  const result: CustomerExportResult = { rows, bytes, fileName: `customers-${new Date().toISOString().slice(0, 10)}.csv` };
  await completeJob(ctx, jobId, result as unknown as Record<string, unknown>, key);
  return result;
}
