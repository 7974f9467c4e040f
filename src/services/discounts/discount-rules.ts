import type { Sql } from '../../db/transaction.js';
import { unprocessable } from '../../errors.js';

export interface DiscountRecord {
  id: string;
  code: string;
  type: 'percentage' | 'fixed_amount' | 'free_shipping';
  value: number | null;
  isActive: boolean;
  usageLimit: number | null;
  usageCount: number;
  startsAt: Date | null;
  endsAt: Date | null;
  minimumOrderAmount: number | null;
}

export const notApplicable = (reason: string) =>
  unprocessable('discount_not_applicable', `This discount cannot be applied: ${reason}`, [{ path: 'code', message: reason }]);

/** Why a discount cannot apply to a cart with this subtotal (before discounts), or null when it can. */
export function discountProblem(discount: DiscountRecord | undefined, subtotal: number, now = new Date()): string | null {
  if (!discount) return 'unknown';
  if (!discount.isActive) return 'inactive';
  if (discount.startsAt && discount.startsAt > now) return 'not started';
  if (discount.endsAt && discount.endsAt <= now) return 'expired';
  if (discount.usageLimit !== null && discount.usageCount >= discount.usageLimit) return 'usage limit reached';
  if (discount.minimumOrderAmount !== null && subtotal < discount.minimumOrderAmount) return 'minimum order not met';
  return null;
}

export async function findDiscountByCode(db: Sql, storeId: string, code: string): Promise<DiscountRecord | undefined> {
  return db('discounts').where({ storeId }).whereRaw('lower(code) = lower(?)', [code]).first();
}

/**
 * Counts one use, atomically: the UPDATE's WHERE refuses to pass `usageLimit` and re-checks the
 * dates, so concurrent checkouts can never overshoot (the table's CHECK constraint is the backstop).
 */
export async function redeemDiscount(trx: Sql, storeId: string, discountId: string, subtotal: number): Promise<DiscountRecord> {
  const [row] = (await trx('discounts')
    .where({ id: discountId, storeId, isActive: true })
    .where((q) => q.whereNull('startsAt').orWhere('startsAt', '<=', trx.fn.now()))
    .where((q) => q.whereNull('endsAt').orWhere('endsAt', '>', trx.fn.now()))
    .where((q) => q.whereNull('usageLimit').orWhereRaw('usage_count < usage_limit'))
    .where((q) => q.whereNull('minimumOrderAmount').orWhere('minimumOrderAmount', '<=', subtotal))
    .update({ usageCount: trx.raw('usage_count + 1'), updatedAt: trx.fn.now() })
    .returning('*')) as DiscountRecord[];
  if (row) return row;
  const current: DiscountRecord | undefined = await trx('discounts').where({ id: discountId, storeId }).first();
  throw notApplicable(discountProblem(current, subtotal) ?? 'usage limit reached');
}

/** Gives a use back (a checkout session expired or was cancelled before it became an order). */
export async function releaseDiscount(trx: Sql, storeId: string, discountId: string): Promise<void> {
  await trx('discounts').where({ id: discountId, storeId }).where('usageCount', '>', 0).update({ usageCount: trx.raw('usage_count - 1') });
}
