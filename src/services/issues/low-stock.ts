import type { AppContext } from '../../context.js';
import { LOW_STOCK_THRESHOLD } from '../catalog/index.js';

/**
 * The hourly low-stock scan, for every store in two statements: an open `low_stock` issue per
 * variant at or below the threshold (`low_stock`: deny policy, not archived; the detail follows the quantity),
 * and the open ones of variants restocked (or archived) since are resolved.
 */
export async function scanLowStock(ctx: AppContext): Promise<{ raised: number; resolved: number }> {
  const raised = await ctx.db.raw(
    `insert into store_issues as i (store_id, kind, subject, severity, title, detail)
     select v.store_id, 'low_stock', v.id::text, 'warning',
            left('Low stock: ' || p.title || coalesce(' (' || v.sku || ')', ''), 500),
            v.inventory_quantity || ' in stock (threshold ' || ? || ')'
       from product_variants v
       join products p on p.id = v.product_id
      where v.low_stock and p.status <> 'archived'
     on conflict (store_id, kind, subject) where resolved_at is null do update
       set last_seen_at = now(), detail = excluded.detail, title = excluded.title
       where i.detail is distinct from excluded.detail
     returning id`,
    [LOW_STOCK_THRESHOLD]
  );
  const resolved = await ctx.db.raw(
    `update store_issues i set resolved_at = now()
      where i.kind = 'low_stock' and i.resolved_at is null
        and not exists (
          select 1 from product_variants v join products p on p.id = v.product_id
           where v.id::text = i.subject and v.store_id = i.store_id
             and v.low_stock and p.status <> 'archived')
     returning i.id`
  );
  return { raised: raised.rows.length, resolved: resolved.rows.length };
}
