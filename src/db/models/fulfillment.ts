import { BaseModel } from './base-model.js';

export class Fulfillment extends BaseModel {
  static override tableName = 'fulfillments';
  static override jsonAttributes = ['items'];

  id!: string;
  storeId!: string;
  orderId!: string;
  items!: Array<{ orderItemId: string; quantity: number }>;
  trackingCompany!: string | null;
  trackingNumber!: string | null;
  trackingUrl!: string | null;
  notifyCustomer!: boolean;
  createdAt!: Date;
}
