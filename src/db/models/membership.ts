import type { RelationMappings } from 'objection';
import type { Role } from '../../services/roles.js';
import { BaseModel } from './base-model.js';
import { Store } from './store.js';

export class Membership extends BaseModel {
  static override tableName = 'memberships';

  id!: string;
  storeId!: string;
  userId!: string;
  role!: Role;
  createdAt!: Date;
  store?: Store;

  static override get relationMappings(): RelationMappings {
    return { store: { relation: BaseModel.BelongsToOneRelation, modelClass: Store, join: { from: 'memberships.storeId', to: 'stores.id' } } };
  }
}
