import type { RelationMappings } from 'objection';
import { BaseModel } from './base-model.js';
import { Product } from './product.js';

export class Collection extends BaseModel {
  static override tableName = 'collections';

  id!: string;
  storeId!: string;
  title!: string;
  slug!: string;
  description!: string;
  isPublished!: boolean;
  mediaId!: string | null;
  createdAt!: Date;
  updatedAt!: Date;
  products?: Product[];

  static override get relationMappings(): RelationMappings {
    return {
      products: {
        relation: BaseModel.ManyToManyRelation,
        modelClass: Product,
        join: {
          from: 'collections.id',
          through: { from: 'collectionProducts.collectionId', to: 'collectionProducts.productId', extra: ['position'] },
          to: 'products.id'
        }
      }
    };
  }
}
