import { Model } from 'objection';

/**
 * The base of every model. Models are thin: a table name, JSON columns and relations. Queries live
 * in services, which pass their knex (or transaction) to `Model.query(db)`: no model is bound to a
 * global connection, so tests can run several databases in one process. The knex instance maps
 * camelCase to snake_case (knexSnakeCaseMappers), so models need no column mappers of their own.
 */
export class BaseModel extends Model {
  static override useLimitInFirst = true;
}
