import { BaseModel } from './base-model.js';

export class StoreIssue extends BaseModel {
  static override tableName = 'storeIssues';

  id!: string;
  storeId!: string;
  kind!: string;
  subject!: string;
  severity!: 'info' | 'warning' | 'critical';
  title!: string;
  detail!: string | null;
  occurrences!: number;
  firstSeenAt!: Date;
  lastSeenAt!: Date;
  resolvedAt!: Date | null;
}
