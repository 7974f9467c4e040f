import type { AppContext } from '../../context.js';
import { notFound, unprocessable } from '../../errors.js';
import { noteCatalogWrite, readCatalog } from '../catalog/index.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Sql, Transaction } from '../../db/transaction.js';

export const REVIEW_STATES = ['pending', 'approved', 'rejected'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

interface ReviewRow {
  id: string;
  storeId: string;
  productId: string;
  orderId: string | null;
  email: string;
  state: ReviewState;
  rating: number;
  title: string;
  body: string;
  authorName: string;
  moderationNote: string | null;
  moderatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ReviewInput {
  orderNumber: number;
  email: string;
  rating: number;
  title?: string;
  body?: string;
  authorName?: string;
}

const toPublicDto = (row: ReviewRow) => ({
  id: row.id,
  rating: row.rating,
  title: row.title,
  body: row.body,
  authorName: row.authorName,
  verifiedPurchase: true,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});

const toAdminDto = (row: ReviewRow) => ({
  ...toPublicDto(row),
  productId: row.productId,
  orderId: row.orderId,
  email: row.email,
  state: row.state,
  moderationNote: row.moderationNote,
  moderatedAt: row.moderatedAt
});

const notVerified = () =>
  unprocessable('review_not_verified', 'Only a customer who bought this product can review it', [
    { path: 'orderNumber', message: 'no paid order with this number, email and product' }
  ]);

async function activeProduct(db: Sql, storeId: string, slug: string) {
  const product = await db('products').where({ storeId, status: 'active' }).whereRaw('lower(slug) = lower(?)', [slug]).first('id');
  if (!product) throw notFound('Product');
  return product.id as string;
}

/**
 * Recomputes the approved-review aggregate under the product's rating row lock. Every review write
 * takes that lock first, so concurrent writers run one after another and each recount sees the
 * others' committed rows: the aggregate cannot drift.
 */
async function lockRating(trx: Transaction, storeId: string, productId: string) {
  await trx.raw('insert into product_ratings (product_id, store_id) values (?, ?) on conflict (store_id, product_id) do nothing', [productId, storeId]);
  await trx('productRatings').where({ storeId, productId }).forUpdate().first('productId');
}

async function recountRating(trx: Transaction, storeId: string, productId: string) {
  await trx.raw(
    `update product_ratings r set approved_count = s.count, rating_sum = s.sum, updated_at = now()
       from (select count(*)::int as count, coalesce(sum(rating), 0)::int as sum from reviews where store_id = ? and product_id = ? and state = 'approved') s
      where r.store_id = ? and r.product_id = ?`,
    [storeId, productId, storeId, productId]
  );
}

/** One review per product and email: created (201) or replaced (200), and back to pending either way. */
export async function upsertReview(ctx: AppContext, storeId: string, slug: string, input: ReviewInput) {
  const productId = await activeProduct(ctx.db, storeId, slug);
  // Verified purchase: that order number, that email, an item of this product, and paid (partly refunded
  // still counts; fully refunded or cancelled does not): a manual-payment order still pending may never
  // be paid (it is cancelled after the store's manualPaymentDays).
  const order = await ctx.db('orders as o')
    .where({ 'o.storeId': storeId, 'o.number': input.orderNumber })
    .whereIn('o.paymentStatus', ['paid', 'partially_refunded'])
    .whereNot('o.status', 'cancelled')
    .whereRaw('lower(o.email) = lower(?)', [input.email])
    .whereExists((q) => q.select(1).from('orderItems as i').whereRaw('i.store_id = o.store_id and i.order_id = o.id').where('i.productId', productId))
    .first('o.id', 'o.customerId');
  if (!order) throw notVerified();

  const written = await withTransaction(ctx, async (trx) => {
    await lockRating(trx, storeId, productId);
    const fields = {
      orderId: order.id,
      customerId: order.customerId,
      rating: input.rating,
      title: input.title ?? '',
      body: input.body ?? '',
      authorName: input.authorName ?? '',
      state: 'pending',
      moderationNote: null,
      moderatedAt: null
    };
    const existing = await trx('reviews').where({ storeId, productId }).whereRaw('lower(email) = lower(?)', [input.email]).first('id');
    let row: ReviewRow;
    if (existing) {
      [row] = await trx('reviews').where({ storeId, id: existing.id }).update({ ...fields, updatedAt: trx.fn.now() }).returning('*');
    } else {
      [row] = await trx('reviews').insert({ storeId, productId, email: input.email, ...fields }).returning('*');
    }
    await recountRating(trx, storeId, productId);
    return { created: !existing, review: { ...toPublicDto(row), state: row.state } };
  });
  // Storefront review reads may run on the read replica: they must not be older than this.
  await noteCatalogWrite(ctx, storeId);
  return written;
}

export async function listProductReviews(ctx: AppContext, storeId: string, slug: string, page: PageRequest) {
  // The storefront's read: on the read replica when it is current for the store (replica-routing.ts).
  const [result, rating] = await readCatalog(ctx, storeId, async (db) => {
    const productId = await activeProduct(db, storeId, slug);
    return Promise.all([
      keysetPage<ReviewRow>(db('reviews').where({ storeId, productId, state: 'approved' }), { column: 'createdAt', direction: 'desc' }, page),
      db('productRatings').where({ storeId, productId }).first('approvedCount', 'ratingSum')
    ]);
  });
  const count = rating?.approvedCount ?? 0;
  return {
    reviews: result.items.map(toPublicDto),
    nextCursor: result.nextCursor,
    rating: { average: count ? Math.round((rating.ratingSum / count) * 100) / 100 : null, count }
  };
}

export async function listReviews(ctx: AppContext, storeId: string, filters: { state?: ReviewState; productId?: string }, page: PageRequest) {
  const query = ctx.db('reviews').where({ storeId });
  if (filters.state) query.where({ state: filters.state });
  if (filters.productId) query.where({ productId: filters.productId });
  const result = await keysetPage<ReviewRow>(query, { column: 'createdAt', direction: 'desc' }, page);
  return { reviews: result.items.map(toAdminDto), nextCursor: result.nextCursor };
}

export async function moderateReview(ctx: AppContext, storeId: string, reviewId: string, input: { state: ReviewState; note?: string | null }) {
  const moderated = await withTransaction(ctx, async (trx) => {
    const current = await trx('reviews').where({ storeId, id: reviewId }).first('productId');
    if (!current) throw notFound('Review');
    await lockRating(trx, storeId, current.productId);
    const [row] = (await trx('reviews')
      .where({ storeId, id: reviewId })
      .update({ state: input.state, moderationNote: input.note ?? null, moderatedAt: trx.fn.now(), updatedAt: trx.fn.now() })
      .returning('*')) as ReviewRow[];
    await recountRating(trx, storeId, current.productId);
    return { review: toAdminDto(row!) };
  });
  await noteCatalogWrite(ctx, storeId);
  return moderated;
}

export const pendingReviewsCount = async (db: Sql, storeId: string) =>
  Number((await db('reviews').where({ storeId, state: 'pending' }).count<{ count: number }[]>('* as count').first())?.count ?? 0);
