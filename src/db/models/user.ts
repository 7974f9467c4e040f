import type { RelationMappings } from 'objection';
import { BaseModel } from './base-model.js';
import { Membership } from './membership.js';

export class User extends BaseModel {
  static override tableName = 'users';

  id!: string;
  email!: string;
  firstName!: string;
  lastName!: string;
  passwordHash!: string;
  sessionVersion!: number;
  createdAt!: Date;
  updatedAt!: Date;
  memberships?: Membership[];

  static override get relationMappings(): RelationMappings {
    return {
      memberships: { relation: BaseModel.HasManyRelation, modelClass: Membership, join: { from: 'users.id', to: 'memberships.userId' } }
    };
  }
}
