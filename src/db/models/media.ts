import { BaseModel } from './base-model.js';

export class Media extends BaseModel {
  static override tableName = 'media';

  id!: string;
  storeId!: string;
  storageKey!: string;
  contentType!: string;
  size!: number;
  width!: number | null;
  height!: number | null;
  alt!: string | null;
  createdAt!: Date;
}
