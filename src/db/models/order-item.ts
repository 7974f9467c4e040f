import { BaseModel } from './base-model.js';

export class OrderItem extends BaseModel {
  static override tableName = 'orderItems';

  id!: string;
  orderId!: string;
  storeId!: string;
  productId!: string | null;
  variantId!: string | null;
  title!: string;
  sku!: string | null;
  quantity!: number;
  unitPrice!: number;
  lineTotal!: number;
  fulfilledQuantity!: number;
  position!: number;
}
