import type { AppContext } from '../../context.js';
import { containsPattern } from '../../db/like-patterns.js';
import { conflict, notFound, uniqueViolation, validationFailed } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Sql } from '../../db/transaction.js';
import { recordAudit } from '../audit/index.js';

export const DISCOUNT_TYPES = ['percentage', 'fixed_amount', 'free_shipping'] as const;
export type DiscountType = (typeof DISCOUNT_TYPES)[number];

export interface DiscountInput {
  code: string;
  type: DiscountType;
  value?: number | null;
  isActive?: boolean;
  usageLimit?: number | null;
  startsAt?: Date | null;
  endsAt?: Date | null;
  minimumOrderAmount?: number | null;
}

/** A `discounts` row. */
export interface DiscountRow {
  id: string;
  storeId: string;
  code: string;
  type: DiscountType;
  value: number | null;
  isActive: boolean;
  usageLimit: number | null;
  usageCount: number;
  startsAt: Date | null;
  endsAt: Date | null;
  minimumOrderAmount: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export const toDiscountDto = (row: DiscountRow) => ({
  id: row.id,
  code: row.code,
  type: row.type,
  value: row.type === 'free_shipping' ? null : row.value,
  isActive: row.isActive,
  usageLimit: row.usageLimit,
  usageCount: row.usageCount,
  startsAt: row.startsAt,
  endsAt: row.endsAt,
  minimumOrderAmount: row.minimumOrderAmount,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});

const codeTaken = () => conflict('code_taken', 'A discount with this code already exists', [{ path: 'code', message: 'code is taken' }]);

/** Every stored field from the request; absent optional fields become null (PUT replaces the whole discount). */
function columnsFrom(input: DiscountInput) {
  return {
    code: input.code,
    type: input.type,
    value: input.type === 'free_shipping' ? null : (input.value ?? null),
    isActive: input.isActive ?? true,
    usageLimit: input.usageLimit ?? null,
    startsAt: input.startsAt ?? null,
    endsAt: input.endsAt ?? null,
    minimumOrderAmount: input.minimumOrderAmount ?? null
  };
}

export async function listDiscounts(ctx: AppContext, storeId: string, filters: { q?: string; isActive?: boolean }, page: PageRequest) {
  const query = ctx.db('discounts').where({ storeId });
  if (filters.q) query.whereRaw('lower(code) like ?', [containsPattern(filters.q)]);
  if (filters.isActive !== undefined) query.where({ isActive: filters.isActive });
  const result = await keysetPage<DiscountRow>(query, { column: 'createdAt', direction: 'desc' }, page);
  return { discounts: result.items.map(toDiscountDto), nextCursor: result.nextCursor };
}

export async function getDiscount(ctx: AppContext, storeId: string, discountId: string) {
  const row: DiscountRow | undefined = await ctx.db('discounts').where({ storeId, id: discountId }).first();
  if (!row) throw notFound('Discount');
  return toDiscountDto(row);
}

export async function createDiscount(ctx: AppContext, storeId: string, input: DiscountInput) {
  try {
    // In a transaction, so that an admin request's audit entry commits with the discount.
    const row = await withTransaction(ctx, async (trx) => (await trx('discounts').insert({ storeId, ...columnsFrom(input) }).returning('*'))[0]);
    return toDiscountDto(row);
  } catch (error) {
    if (uniqueViolation(error) === 'discounts_store_code_key') throw codeTaken();
    throw error;
  }
}

export async function replaceDiscount(ctx: AppContext, storeId: string, discountId: string, input: DiscountInput) {
  const columns = columnsFrom(input);
  try {
    return await withTransaction(ctx, async (trx) => {
      // Lock the row so a checkout redeeming it cannot slip past the new usage limit.
      const current: DiscountRow | undefined = await trx('discounts').where({ storeId, id: discountId }).forUpdate().first();
      if (!current) throw notFound('Discount');
      if (columns.usageLimit !== null && columns.usageLimit < current.usageCount) {
        throw validationFailed([{ path: 'usageLimit', message: `usageLimit cannot be below the current usageCount (${current.usageCount})` }]);
      }
      const [row] = await trx('discounts').where({ storeId, id: current.id }).update({ ...columns, updatedAt: new Date() }).returning('*');
      return toDiscountDto(row);
    });
  } catch (error) {
    if (uniqueViolation(error) === 'discounts_store_code_key') throw codeTaken();
    throw error;
  }
}

/**
 * Deletes a discount no order used. One used on an order (an order carries its code, a completed
 * checkout named it, or a use is counted: a pending checkout holds one) is refused with 409
 * discount_in_use: its orders keep pointing at it, so it is deactivated instead. The row is locked
 * first, so a checkout redeeming it now waits and then finds it gone (unknown code).
 */
export async function deleteDiscount(ctx: AppContext, storeId: string, discountId: string) {
  await withTransaction(ctx, async (trx) => {
    const current: DiscountRow | undefined = await trx('discounts').where({ storeId, id: discountId }).forUpdate().first();
    if (!current) throw notFound('Discount');
    const ordered = await trx('orders').where({ storeId }).whereRaw('lower(discount_code) = lower(?)', [current.code]).first('id');
    const checkedOut = ordered ? undefined : await trx('checkoutSessions').where({ storeId, discountId, status: 'completed' }).first('id');
    if (current.usageCount > 0 || ordered || checkedOut) {
      throw conflict('discount_in_use', 'This discount has been used on an order: deactivate it instead', [{ path: 'discountId', message: 'used on an order' }]);
    }
    await trx('discounts').where({ storeId, id: discountId }).delete();
    await recordAudit(ctx, trx, { storeId, action: 'discount.deleted', resourceType: 'discount', resourceId: discountId, before: toDiscountDto(current), after: null });
  });
  return { deleted: true as const, id: discountId };
}

/** A cancelled order gives its discount's use back (never below zero), so a limited code can be used again. */
export async function releaseDiscountUse(db: Sql, storeId: string, code: string): Promise<void> {
  await db('discounts')
    .where({ storeId })
    .whereRaw('lower(code) = lower(?)', [code])
    .where('usageCount', '>', 0)
    .update({ usageCount: db.raw('usage_count - 1'), updatedAt: db.fn.now() });
}
