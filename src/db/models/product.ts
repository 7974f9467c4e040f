import type { RelationMappings } from 'objection';
import { BaseModel } from './base-model.js';
import { Collection } from './collection.js';
import { Media } from './media.js';
import { ProductVariant } from './product-variant.js';

export class Product extends BaseModel {
  static override tableName = 'products';
  static override jsonAttributes = ['options', 'seo'];

  id!: string;
  storeId!: string;
  title!: string;
  slug!: string;
  description!: string;
  status!: 'draft' | 'active' | 'archived';
  tags!: string[];
  options!: Array<{ name: string; values: string[] }>;
  seo!: { title?: string | null; description?: string | null };
  minPrice!: number;
  maxPrice!: number;
  createdAt!: Date;
  updatedAt!: Date;
  variants?: ProductVariant[];
  media?: Media[];
  collections?: Collection[];

  static override get relationMappings(): RelationMappings {
    return {
      variants: {
        relation: BaseModel.HasManyRelation,
        modelClass: ProductVariant,
        join: { from: 'products.id', to: 'productVariants.productId' }
      },
      media: {
        relation: BaseModel.ManyToManyRelation,
        modelClass: Media,
        join: {
          from: 'products.id',
          through: { from: 'productMedia.productId', to: 'productMedia.mediaId', extra: ['position'] },
          to: 'media.id'
        }
      },
      collections: {
        relation: BaseModel.ManyToManyRelation,
        modelClass: Collection,
        join: {
          from: 'products.id',
          through: { from: 'collectionProducts.productId', to: 'collectionProducts.collectionId', extra: ['position'] },
          to: 'collections.id'
        }
      }
    };
  }
}
