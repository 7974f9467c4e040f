import { BaseModel } from './base-model.js';

export class Customer extends BaseModel {
  static override tableName = 'customers';

  id!: string;
  storeId!: string;
  email!: string;
  firstName!: string | null;
  lastName!: string | null;
  phone!: string | null;
  tags!: string[];
  note!: string | null;
  emailMarketing!: 'subscribed' | 'unsubscribed' | 'not_subscribed';
  emailMarketingUpdatedAt!: Date | null;
  emailMarketingSource!: string | null;
  emailMarketingIp!: string | null;
  ordersCount!: number;
  totalSpent!: number;
  lastOrderAt!: Date | null;
  source!: string | null;
  externalId!: string | null;
  createdAt!: Date;
  updatedAt!: Date;
}
