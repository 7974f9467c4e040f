import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { bumpStorefrontVersion } from '../catalog/index.js';
import { recordAudit } from '../audit/index.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { normalizeRegion, type TaxRegionRule } from './compute.js';

/** A `tax_regions` row: `region` '' is the country's own entry. */
export interface TaxRegionRow extends TaxRegionRule {
  storeId: string;
  id: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface TaxRegionInput {
  country: string;
  region?: string | null;
  name: string;
  rate: number;
  classRates?: Record<string, number>;
  taxShipping?: boolean;
}

export const toTaxRegionDto = (row: TaxRegionRow) => ({
  id: row.id,
  country: row.country,
  region: row.region ? `${row.country}-${row.region}` : null,
  name: row.name,
  rate: row.rate,
  classRates: row.classRates ?? {},
  taxShipping: row.taxShipping,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});

const regionsKey = (storeId: string) => `tax-regions:${storeId}`;

/**
 * The store's tax regions for the shopper's hot path (carts, checkout, storefront prices), from the
 * per-process cache; every write here drops it in every process (as updateStore does the store row).
 */
export async function cachedTaxRegions(ctx: AppContext, storeId: string): Promise<TaxRegionRow[]> {
  const key = regionsKey(storeId);
  const cached = ctx.cache.get<TaxRegionRow[]>(key);
  if (cached) return cached;
  const generation = ctx.cache.generation();
  const rows = (await ctx.db('taxRegions').where({ storeId }).orderBy(['country', 'region'])) as TaxRegionRow[];
  ctx.cache.set(key, rows, generation);
  return rows;
}

async function changed(ctx: AppContext, storeId: string) {
  await ctx.cache.invalidate(regionsKey(storeId));
  // Storefront prices shown with tax depend on the table: their cached bodies and ETags turn over.
  await bumpStorefrontVersion(ctx, storeId);
}

const duplicate = (input: { country: string; region: string }) =>
  conflict('conflict', `A tax region for ${input.region ? `${input.country}-${input.region}` : input.country} exists already`, [{ path: 'region', message: 'already defined' }]);

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

export async function listTaxRegions(ctx: AppContext, storeId: string, filter: { country?: string }, page: PageRequest) {
  const query = ctx.db('taxRegions').where({ storeId });
  if (filter.country) query.where({ country: filter.country.toUpperCase() });
  const result = await keysetPage<TaxRegionRow>(query.select('*'), { column: 'createdAt', direction: 'asc' }, page);
  return { taxRegions: result.items.map(toTaxRegionDto), nextCursor: result.nextCursor };
}

export async function getTaxRegion(ctx: AppContext, storeId: string, id: string) {
  const row = (await ctx.db('taxRegions').where({ storeId, id }).first()) as TaxRegionRow | undefined;
  if (!row) throw notFound('Tax region');
  return toTaxRegionDto(row);
}

export async function createTaxRegion(ctx: AppContext, storeId: string, input: TaxRegionInput) {
  const country = input.country.toUpperCase();
  const values = {
    storeId,
    country,
    region: normalizeRegion(country, input.region),
    name: input.name,
    rate: input.rate,
    classRates: JSON.stringify(input.classRates ?? {}),
    taxShipping: input.taxShipping ?? false
  };
  const row = await withTransaction(ctx, async (trx) => {
    const [inserted] = (await trx('taxRegions').insert(values).onConflict(['storeId', 'country', 'region']).ignore().returning('*')) as TaxRegionRow[];
    if (!inserted) throw duplicate(values);
    await recordAudit(ctx, trx, { storeId, action: 'tax_region.created', resourceType: 'tax_region', resourceId: inserted.id, after: toTaxRegionDto(inserted) });
    return inserted;
  });
  await changed(ctx, storeId);
  return toTaxRegionDto(row);
}

export async function updateTaxRegion(ctx: AppContext, storeId: string, id: string, input: Partial<TaxRegionInput>) {
  const row = await withTransaction(ctx, async (trx) => {
    const current = (await trx('taxRegions').where({ storeId, id }).forUpdate().first()) as TaxRegionRow | undefined;
    if (!current) throw notFound('Tax region');
    const country = (input.country ?? current.country).toUpperCase();
    const changes: Record<string, unknown> = { country };
    if (input.region !== undefined || input.country !== undefined) changes.region = normalizeRegion(country, input.region === undefined ? current.region : input.region);
    if (input.name !== undefined) changes.name = input.name;
    if (input.rate !== undefined) changes.rate = input.rate;
    if (input.classRates !== undefined) changes.classRates = JSON.stringify(input.classRates);
    if (input.taxShipping !== undefined) changes.taxShipping = input.taxShipping;
    let updated: TaxRegionRow;
    try {
      [updated] = (await trx('taxRegions').where({ storeId, id }).update({ ...changes, updatedAt: trx.fn.now() }).returning('*')) as [TaxRegionRow];
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate({ country, region: (changes.region as string | undefined) ?? current.region });
      throw error;
    }
    await recordAudit(ctx, trx, { storeId, action: 'tax_region.updated', resourceType: 'tax_region', resourceId: id, before: toTaxRegionDto(current), after: toTaxRegionDto(updated) });
    return updated;
  });
  await changed(ctx, storeId);
  return toTaxRegionDto(row);
}

export async function deleteTaxRegion(ctx: AppContext, storeId: string, id: string) {
  await withTransaction(ctx, async (trx) => {
    const [row] = (await trx('taxRegions').where({ storeId, id }).delete().returning('*')) as TaxRegionRow[];
    if (!row) throw notFound('Tax region');
    await recordAudit(ctx, trx, { storeId, action: 'tax_region.deleted', resourceType: 'tax_region', resourceId: id, before: toTaxRegionDto(row) });
  });
  await changed(ctx, storeId);
}
