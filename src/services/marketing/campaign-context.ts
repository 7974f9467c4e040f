import type { AppContext } from '../../context.js';
import { notFound, validationFailed } from '../../errors.js';
import { mediaUrl } from '../catalog/index.js';

/** Minor units as the store's currency shows them ("19.99 USD" style, through Intl). */
export function formatMoney(amount: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency}`;
  }
}

/** Base of links to the shop: the store's storefrontUrl, else APP_URL. */
async function shopBaseUrl(ctx: AppContext, storeId: string): Promise<string> {
  const row = await ctx.db('stores').where({ id: storeId }).first('storefrontUrl');
  return row?.storefrontUrl ? String(row.storefrontUrl).replace(/\/+$/, '') : ctx.config.appUrl;
}

async function firstImageUrls(ctx: AppContext, storeId: string, productIds: string[]): Promise<Map<string, string>> {
  if (!productIds.length) return new Map();
  const rows = await ctx
    .db('productMedia')
    .where({ storeId })
    .whereIn('productId', productIds)
    .distinctOn('productId')
    .orderBy([{ column: 'productId' }, { column: 'position' }])
    .select('productId', 'mediaId');
  return new Map(rows.map((r: { productId: string; mediaId: string }) => [r.productId, mediaUrl(ctx, r.mediaId)]));
}

/** The product as campaign templates see it: `product.title`, `price`, `priceFormatted`, `url`, `imageUrl`. */
export async function productContext(ctx: AppContext, storeId: string, productId: string) {
  const product = await ctx.db('products').where({ storeId, id: productId }).first('id', 'title', 'slug', 'description', 'minPrice');
  if (!product) throw notFound('Product');
  const store = await ctx.db('stores').where({ id: storeId }).first('currency');
  const [base, images] = await Promise.all([shopBaseUrl(ctx, storeId), firstImageUrls(ctx, storeId, [productId])]);
  return {
    product: {
      id: product.id,
      title: product.title,
      description: product.description ?? '',
      price: product.minPrice,
      priceFormatted: formatMoney(product.minPrice, store.currency),
      url: `${base}/products/${product.slug}`,
      imageUrl: images.get(productId) ?? null
    }
  };
}

const COLLECTION_PRODUCTS_SHOWN = 12;

/** The collection with its first active products, for `collection.*` in templates. */
export async function collectionContext(ctx: AppContext, storeId: string, collectionId: string) {
  const collection = await ctx.db('collections').where({ storeId, id: collectionId }).first('id', 'title', 'slug', 'description', 'mediaId');
  if (!collection) throw notFound('Collection');
  const store = await ctx.db('stores').where({ id: storeId }).first('currency');
  const products = await ctx
    .db('collectionProducts as cp')
    .join('products as p', (on) => on.on('p.storeId', 'cp.storeId').andOn('p.id', 'cp.productId'))
    .where({ 'cp.storeId': storeId, 'cp.collectionId': collectionId, 'p.status': 'active' })
    .orderBy([{ column: 'cp.position' }, { column: 'p.id' }])
    .limit(COLLECTION_PRODUCTS_SHOWN)
    .select('p.id', 'p.title', 'p.slug', 'p.minPrice');
  const [base, images] = await Promise.all([shopBaseUrl(ctx, storeId), firstImageUrls(ctx, storeId, products.map((p: { id: string }) => p.id))]);
  return {
    collection: {
      id: collection.id,
      title: collection.title,
      description: collection.description ?? '',
      url: `${base}/collections/${collection.slug}`,
      imageUrl: collection.mediaId ? mediaUrl(ctx, collection.mediaId) : null,
      products: products.map((p: { id: string; title: string; slug: string; minPrice: number }) => ({
        id: p.id,
        title: p.title,
        price: p.minPrice,
        priceFormatted: formatMoney(p.minPrice, store.currency),
        url: `${base}/products/${p.slug}`,
        imageUrl: images.get(p.id) ?? null
      }))
    }
  };
}

/** The discount code an old-customers campaign offers, as stored (422 when the store has no such code). */
export async function discountContext(ctx: AppContext, storeId: string, code: string) {
  const discount = await ctx.db('discounts').where({ storeId }).whereRaw('lower(code) = lower(?)', [code]).first('code');
  if (!discount) throw validationFailed([{ path: 'discountCode', message: 'no discount with this code' }]);
  return { discountCode: discount.code as string };
}
