import { BaseModel } from './base-model.js';

export type DiscountType = 'percentage' | 'fixed_amount' | 'free_shipping';

export class Discount extends BaseModel {
  static override tableName = 'discounts';

  id!: string;
  storeId!: string;
  code!: string;
  type!: DiscountType;
  value!: number | null;
  isActive!: boolean;
  usageLimit!: number | null;
  usageCount!: number;
  startsAt!: Date | null;
  endsAt!: Date | null;
  minimumOrderAmount!: number | null;
  createdAt!: Date;
  updatedAt!: Date;
}
