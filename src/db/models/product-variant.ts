import { BaseModel } from './base-model.js';

export class ProductVariant extends BaseModel {
  static override tableName = 'productVariants';
  static override jsonAttributes = ['optionValues'];

  id!: string;
  storeId!: string;
  productId!: string;
  sku!: string | null;
  title!: string;
  optionValues!: Record<string, string>;
  price!: number;
  compareAtPrice!: number | null;
  inventoryQuantity!: number;
  inventoryPolicy!: 'deny' | 'continue';
  position!: number;
  archivedAt!: Date | null;
  createdAt!: Date;
  updatedAt!: Date;
}
