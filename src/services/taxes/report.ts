import { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import type { Tenant } from '../../platform/roles.js';
import { taxReportJob } from '../../jobs/tax-report.js';
import { completeJob, createJob, findJobRow } from '../job-history/index.js';
import { csvLine } from '../../platform/csv/format.js';

export const TAX_REPORT_COLUMNS = ['month', 'jurisdiction', 'tax', 'rate_percent', 'collected', 'refunded', 'net', 'currency'] as const;

export interface TaxReportResult {
  rows: number;
  bytes: number;
  fileName: string;
  collected: number;
  refunded: number;
}

export interface TaxReportInput {
  /** Months (UTC) from and to, inclusive: 'YYYY-MM'. */
  from?: string;
  to?: string;
}

/** Starts the tax report job: 202 { job }, the CSV downloadable at /admin/jobs/{id}/download once completed. */
export async function startTaxReport(ctx: AppContext, tenant: Tenant, input: TaxReportInput) {
  return createJob(ctx, { storeId: tenant.storeId, kind: taxReportJob, createdBy: tenant.userId, input: { ...input } });
}

/**
 * Tax collected (orders placed and paid for, by the month they were placed: each line's and the
 * shipping line's tax lines) and refunded (succeeded refunds' tax lines, by the month of the
 * refund) per jurisdiction, tax name, rate and month (UTC), in minor units of the store currency.
 * An edit's refund is left out of `refunded`: the edit already lowered the order's tax lines, which
 * `collected` reads as they are now.
 */
const REPORT_SQL = `
  with collected as (
    select date_trunc('month', o.created_at at time zone 'UTC') as month, t.jurisdiction, t.name, t.rate, sum(t.amount)::bigint as amount
      from orders o
      cross join lateral (
        select x.* from order_items i, jsonb_to_recordset(i.tax_lines) as x(jurisdiction text, name text, rate int, amount bigint)
         where i.store_id = o.store_id and i.order_id = o.id
        union all
        select x.* from jsonb_to_recordset(o.shipping_tax_lines) as x(jurisdiction text, name text, rate int, amount bigint)
      ) t
     where o.store_id = :storeId and o.tax_total > 0 and o.payment_status in ('paid', 'partially_refunded', 'refunded')
     group by 1, 2, 3, 4
  ), refunded as (
    select date_trunc('month', r.created_at at time zone 'UTC') as month, x.jurisdiction, x.name, x.rate, sum(x.amount)::bigint as amount
      from order_refunds r, jsonb_to_recordset(r.tax_lines) as x(jurisdiction text, name text, rate int, amount bigint)
     where r.store_id = :storeId and r.status = 'succeeded' and r.tax_amount > 0 and r.source <> 'edit'
     group by 1, 2, 3, 4
  )
  select to_char(coalesce(c.month, r.month), 'YYYY-MM') as month, coalesce(c.jurisdiction, r.jurisdiction) as jurisdiction,
         coalesce(c.name, r.name) as name, coalesce(c.rate, r.rate) as rate,
         coalesce(c.amount, 0) as collected, coalesce(r.amount, 0) as refunded
    from collected c full join refunded r on r.month = c.month and r.jurisdiction = c.jurisdiction and r.name = c.name and r.rate = c.rate
   order by 1, 2, 3, 4`;

export async function runTaxReport(ctx: AppContext, jobId: string): Promise<TaxReportResult> {
  const job = await findJobRow(ctx, jobId);
  if (!job || !job.storeId) throw new Error(`tax report job ${jobId} not found`);
  if (job.status === 'completed' && job.result) return job.result as unknown as TaxReportResult;
  const storeId = job.storeId;
  const input = (job.input ?? {}) as TaxReportInput;
  const store = (await ctx.db('stores').where({ id: storeId }).first('currency')) as { currency: string };
  const result = await ctx.db.raw(REPORT_SQL, { storeId });
  const rows = (result.rows as Array<{ month: string; jurisdiction: string; name: string; rate: number; collected: string; refunded: string }>).filter(
    (row) => (!input.from || row.month >= input.from) && (!input.to || row.month <= input.to)
  );
  let text = csvLine([...TAX_REPORT_COLUMNS]);
  let collected = 0;
  let refunded = 0;
  for (const row of rows) {
    collected += Number(row.collected);
    refunded += Number(row.refunded);
    text += csvLine([row.month, row.jurisdiction, row.name, (row.rate / 100).toFixed(2), Number(row.collected), Number(row.refunded), Number(row.collected) - Number(row.refunded), store.currency]);
  }
  const key = `exports/${storeId}/${jobId}.csv`;
  await ctx.storage.put(key, Readable.from([text]), { contentType: 'text/csv' });
  const summary: TaxReportResult = { rows: rows.length, bytes: Buffer.byteLength(text), fileName: `tax-report-${new Date().toISOString().slice(0, 10)}.csv`, collected, refunded };
  await completeJob(ctx, jobId, summary as unknown as Record<string, unknown>, key);
  return summary;
}
