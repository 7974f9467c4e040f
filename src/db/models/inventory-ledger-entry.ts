import { BaseModel } from './base-model.js';

export class InventoryLedgerEntry extends BaseModel {
  static override tableName = 'inventoryLedger';

  id!: string;
  storeId!: string;
  variantId!: string;
  userId!: string | null;
  delta!: number;
  reason!: string | null;
  quantityAfter!: number;
  createdAt!: Date;
}
