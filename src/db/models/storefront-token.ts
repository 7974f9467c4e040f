import { BaseModel } from './base-model.js';

export class StorefrontToken extends BaseModel {
  static override tableName = 'storefrontTokens';

  id!: string;
  storeId!: string;
  name!: string;
  prefix!: string;
  tokenHash!: string;
  lastUsedAt!: Date | null;
  revokedAt!: Date | null;
  createdAt!: Date;
  updatedAt!: Date;
}
