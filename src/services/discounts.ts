import type { AppContext } from '../context.js';
import { Discount, type DiscountType } from '../db/models/discount.js';
import { containsPattern } from '../db/like-patterns.js';
import { conflict, notFound, uniqueViolation, validationFailed } from '../errors.js';
import { keysetPage, type PageRequest } from './pagination.js';

export const DISCOUNT_TYPES = ['percentage', 'fixed_amount', 'free_shipping'] as const satisfies readonly DiscountType[];
export type { DiscountType };

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

type DiscountRow = Pick<Discount, 'id' | 'code' | 'type' | 'value' | 'isActive' | 'usageLimit' | 'usageCount' | 'startsAt' | 'endsAt' | 'minimumOrderAmount' | 'createdAt' | 'updatedAt'>;

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
  const row = await Discount.query(ctx.db).findOne({ storeId, id: discountId });
  if (!row) throw notFound('Discount');
  return toDiscountDto(row);
}

export async function createDiscount(ctx: AppContext, storeId: string, input: DiscountInput) {
  try {
    const row = await Discount.query(ctx.db).insertAndFetch({ storeId, ...columnsFrom(input) });
    return toDiscountDto(row);
  } catch (error) {
    if (uniqueViolation(error) === 'discounts_store_code_key') throw codeTaken();
    throw error;
  }
}

export async function replaceDiscount(ctx: AppContext, storeId: string, discountId: string, input: DiscountInput) {
  const columns = columnsFrom(input);
  try {
    return await ctx.db.transaction(async (trx) => {
      // Lock the row so a checkout redeeming it cannot slip past the new usage limit.
      const current = await Discount.query(trx).findOne({ storeId, id: discountId }).forUpdate();
      if (!current) throw notFound('Discount');
      if (columns.usageLimit !== null && columns.usageLimit < current.usageCount) {
        throw validationFailed([{ path: 'usageLimit', message: `usageLimit cannot be below the current usageCount (${current.usageCount})` }]);
      }
      const row = await current.$query(trx).patchAndFetch({ ...columns, updatedAt: new Date() });
      return toDiscountDto(row);
    });
  } catch (error) {
    if (uniqueViolation(error) === 'discounts_store_code_key') throw codeTaken();
    throw error;
  }
}
