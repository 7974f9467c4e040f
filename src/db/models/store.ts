import { BaseModel } from './base-model.js';

export class Store extends BaseModel {
  static override tableName = 'stores';
  static override jsonAttributes = ['shippingMethods'];

  id!: string;
  name!: string;
  slug!: string;
  currency!: string;
  contactEmail!: string | null;
  timezone!: string;
  shippingMethods!: unknown[];
  manualPaymentsEnabled!: boolean;
  logoUrl!: string | null;
  createdAt!: Date;
  updatedAt!: Date;
}
