import { BaseModel } from './base-model.js';

export class JobRowError extends BaseModel {
  static override tableName = 'jobRowErrors';

  id!: number;
  jobId!: string;
  rowNumber!: number;
  columnName!: string;
  message!: string;
}
