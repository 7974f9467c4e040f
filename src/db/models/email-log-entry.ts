import { BaseModel } from './base-model.js';

export class EmailLogEntry extends BaseModel {
  static override tableName = 'emailLog';

  id!: string;
  storeId!: string | null;
  toEmail!: string;
  templateKey!: string | null;
  subject!: string | null;
  status!: 'queued' | 'sent' | 'failed';
  provider!: string | null;
  providerMessageId!: string | null;
  error!: string | null;
  createdAt!: Date;
  sentAt!: Date | null;
}
