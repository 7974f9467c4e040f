import type { RelationMappings } from 'objection';
import { BaseModel } from './base-model.js';
import { JobRowError } from './job-row-error.js';

/** A job run operators see at /admin/jobs (table `jobs`), mirrored from its BullMQ job. */
export class JobRun extends BaseModel {
  static override tableName = 'jobs';
  static override jsonAttributes = ['progress', 'input', 'checkpoint', 'result'];

  id!: string;
  storeId!: string | null;
  type!: string;
  queue!: string;
  status!: 'queued' | 'active' | 'completed' | 'failed';
  progress!: Record<string, unknown>;
  input!: Record<string, unknown>;
  checkpoint!: Record<string, unknown> | null;
  result!: Record<string, unknown> | null;
  error!: string | null;
  fileKey!: string | null;
  attempts!: number;
  createdBy!: string | null;
  createdAt!: Date;
  startedAt!: Date | null;
  finishedAt!: Date | null;
  updatedAt!: Date;
  rowErrors?: JobRowError[];

  static override get relationMappings(): RelationMappings {
    return { rowErrors: { relation: BaseModel.HasManyRelation, modelClass: JobRowError, join: { from: 'jobs.id', to: 'jobRowErrors.jobId' } } };
  }
}
