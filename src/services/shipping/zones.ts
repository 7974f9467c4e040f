import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Sql, Transaction } from '../../db/transaction.js';
import { conflict, notFound, uniqueViolation, validationFailed, type ErrorDetail } from '../../errors.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { recordAudit } from '../audit/index.js';
import { bumpStorefrontVersion } from '../catalog/index.js';
import type { LegacyShippingMethod, RateInput, ShippingRate, ShippingZone, ZoneInput } from './types.js';

/** At most this many zones in a store, and rates in a zone: a store's zones are read whole on every cart. */
export const MAX_ZONES = 100;
export const MAX_RATES = 50;

interface ZoneRow {
  id: string;
  name: string;
  countries: string[];
  regions: string[];
  postcodes: string[];
  position: number;
  source: ShippingZone['source'];
  createdAt: Date;
  updatedAt: Date;
}

interface RateRow extends ShippingRate {
  zoneId: string;
}

const ZONE_COLUMNS = ['id', 'name', 'countries', 'regions', 'postcodes', 'position', 'source', 'createdAt', 'updatedAt'];
const RATE_COLUMNS = ['id', 'zoneId', 'name', 'type', 'price', 'bands', 'freeOver', 'estimate'];

/** A store's zones with their rates, in order (position, then age); one zone with `zoneId`. */
async function loadZones(db: Sql, storeId: string, zoneId?: string): Promise<ShippingZone[]> {
  const query = db('shippingZones').where({ storeId }).orderBy([{ column: 'position' }, { column: 'createdAt' }, { column: 'id' }]).select(ZONE_COLUMNS);
  if (zoneId) query.where({ id: zoneId });
  const zones = (await query) as ZoneRow[];
  if (!zones.length) return [];
  const rates = (await db('shippingRates')
    .where({ storeId })
    .whereIn('zoneId', zones.map((zone) => zone.id))
    .orderBy([{ column: 'zoneId' }, { column: 'position' }])
    .select(RATE_COLUMNS)) as RateRow[];
  const byZone = new Map<string, ShippingRate[]>();
  for (const { zoneId: owner, ...rate } of rates) byZone.set(owner, [...(byZone.get(owner) ?? []), rate]);
  return zones.map((zone) => ({ ...zone, rates: byZone.get(zone.id) ?? [] }));
}

const cacheKey = (storeId: string) => `shipping:${storeId}`;

/**
 * The store's zones for the shopper's path (carts, shipping methods, checkout), from the per-process
 * LocalCache; every write here (and the old setting's) drops it in every process.
 */
export async function cachedZones(ctx: AppContext, storeId: string): Promise<ShippingZone[]> {
  const key = cacheKey(storeId);
  const cached = ctx.cache.get<ShippingZone[]>(key);
  if (cached) return cached;
  const generation = ctx.cache.generation();
  const zones = await loadZones(ctx.db, storeId);
  ctx.cache.set(key, zones, generation);
  return zones;
}

/** Drops the cached zones of the store (after a commit that changed them). */
export const forgetZones = (ctx: AppContext, storeId: string) => ctx.cache.invalidate(cacheKey(storeId));

/** After a zone write: the cache dropped, and the storefront's ETags renewed (`/storefront/store` lists the zones' countries). */
async function zonesChanged(ctx: AppContext, storeId: string): Promise<void> {
  await forgetZones(ctx, storeId);
  await bumpStorefrontVersion(ctx, storeId);
}

export const toZoneDto = (zone: ShippingZone) => ({
  id: zone.id,
  name: zone.name,
  countries: zone.countries,
  regions: zone.regions,
  postcodes: zone.postcodes,
  position: zone.position,
  source: zone.source,
  rates: zone.rates.map((rate) => ({
    id: rate.id,
    name: rate.name,
    type: rate.type,
    price: rate.price,
    bands: rate.bands,
    freeOver: rate.freeOver,
    estimate: rate.estimate
  })),
  createdAt: zone.createdAt,
  updatedAt: zone.updatedAt
});

export async function listZones(ctx: AppContext, storeId: string) {
  return { zones: (await loadZones(ctx.db, storeId)).map(toZoneDto) };
}

export async function getZone(ctx: AppContext, storeId: string, zoneId: string) {
  const [zone] = await loadZones(ctx.db, storeId, zoneId);
  if (!zone) throw notFound('Shipping zone');
  return { zone: toZoneDto(zone) };
}

/**
 * The rules joi cannot say alone: a region written with its country (`US-CA`) names one of the
 * zone's countries; a flat rate has a price, a band rate its bands (rising, only the last open),
 * neither the other's; rate ids are unique in the zone.
 */
function checkZone(zone: { countries: string[]; regions: string[]; rates: RateInput[] }): void {
  const details: ErrorDetail[] = [];
  zone.regions.forEach((region, i) => {
    const country = region.includes('-') ? region.split('-')[0]! : null;
    if (country && zone.countries.length && !zone.countries.includes(country)) {
      details.push({ path: `regions.${i}`, message: `${region} is not in one of the zone's countries (${zone.countries.join(', ')})` });
    }
  });
  const ids = new Set<string>();
  zone.rates.forEach((rate, i) => {
    const path = `rates.${i}`;
    if (rate.id) {
      if (ids.has(rate.id)) details.push({ path: `${path}.id`, message: 'two rates of the zone have this id' });
      ids.add(rate.id);
    }
    const banded = rate.type === 'weight' || rate.type === 'subtotal';
    if (banded) {
      if (rate.price !== undefined && rate.price !== null) details.push({ path: `${path}.price`, message: `a ${rate.type} rate is priced by its bands, not a price` });
      const bands = rate.bands ?? [];
      if (!bands.length) details.push({ path: `${path}.bands`, message: `a ${rate.type} rate needs bands: [{ upTo, price }], the last with upTo null` });
      bands.forEach((band, b) => {
        if (band.upTo === null && b !== bands.length - 1) details.push({ path: `${path}.bands.${b}.upTo`, message: 'only the last band may have upTo null' });
        const previous = bands[b - 1]?.upTo;
        if (b > 0 && band.upTo !== null && previous !== null && previous !== undefined && band.upTo <= previous) {
          details.push({ path: `${path}.bands.${b}.upTo`, message: `bands rise: ${band.upTo} is not above ${previous}` });
        }
      });
    } else {
      if (rate.bands?.length) details.push({ path: `${path}.bands`, message: `a ${rate.type} rate has a price, not bands` });
      if (rate.type === 'flat' && (rate.price === undefined || rate.price === null)) details.push({ path: `${path}.price`, message: 'a flat rate needs a price' });
    }
  });
  if (details.length) throw validationFailed(details);
}

const rateTaken = (index: number, id: string) =>
  conflict('conflict', 'Another zone of the store has a rate with this id', [{ path: `rates.${index}.id`, message: `${id} is taken by another zone's rate` }]);

const rateColumns = (storeId: string, zoneId: string, rate: RateInput, position: number) => ({
  storeId,
  id: rate.id ?? randomUUID(),
  zoneId,
  position,
  name: rate.name,
  type: rate.type,
  price: rate.type === 'weight' || rate.type === 'subtotal' ? null : (rate.price ?? 0),
  bands: rate.type === 'weight' || rate.type === 'subtotal' ? JSON.stringify(rate.bands) : null,
  freeOver: rate.freeOver ?? null,
  estimate: rate.estimate ? JSON.stringify(rate.estimate) : null
});

/**
 * Writes the zone's rates as given: its other rates are deleted, the given ones inserted or updated
 * by id (an id a cart chose stays chosen). An id another zone's rate holds is refused (409).
 */
async function writeRates(trx: Transaction, storeId: string, zoneId: string, rates: RateInput[]): Promise<void> {
  const rows = rates.map((rate, i) => rateColumns(storeId, zoneId, rate, i));
  await trx('shippingRates').where({ storeId, zoneId }).whereNotIn('id', rows.map((row) => row.id)).delete();
  for (const [index, row] of rows.entries()) {
    const result = await trx.raw(
      `insert into shipping_rates (store_id, id, zone_id, position, name, type, price, bands, free_over, estimate)
       values (:storeId, :id, :zoneId, :position, :name, :type, :price, :bands::jsonb, :freeOver, :estimate::jsonb)
       on conflict (id, store_id) do update set position = excluded.position, name = excluded.name, type = excluded.type, price = excluded.price,
         bands = excluded.bands, free_over = excluded.free_over, estimate = excluded.estimate
        where shipping_rates.zone_id = excluded.zone_id
       returning id`,
      row
    );
    if (!result.rows.length) throw rateTaken(index, row.id);
  }
}

const uniqueList = (values: string[] | null | undefined) => [...new Set((values ?? []).map((value) => value.trim().toUpperCase()).filter(Boolean))];

export async function createZone(ctx: AppContext, storeId: string, input: ZoneInput & { name: string; countries: string[]; rates: RateInput[] }) {
  const zone = { countries: uniqueList(input.countries), regions: uniqueList(input.regions), postcodes: uniqueList(input.postcodes), rates: input.rates };
  checkZone(zone);
  const created = await withTransaction(ctx, async (trx) => {
    const { count, next } = (await trx('shippingZones').where({ storeId }).first(trx.raw('count(*)::int as count'), trx.raw('coalesce(max(position) + 1, 0)::int as next'))) as {
      count: number;
      next: number;
    };
    if (count >= MAX_ZONES) throw conflict('conflict', `A store has at most ${MAX_ZONES} shipping zones`);
    const [row] = (await trx('shippingZones')
      .insert({ storeId, name: input.name, countries: zone.countries, regions: zone.regions, postcodes: zone.postcodes, position: next, source: 'zones' })
      .returning('id')) as Array<{ id: string }>;
    await writeRates(trx, storeId, row!.id, zone.rates);
    const [saved] = await loadZones(trx, storeId, row!.id);
    await recordAudit(ctx, trx, { storeId, action: 'shipping_zone.created', resourceType: 'shipping_zone', resourceId: row!.id, after: toZoneDto(saved!) });
    return saved!;
  });
  await zonesChanged(ctx, storeId);
  return { zone: toZoneDto(created) };
}

/**
 * A partial update: absent fields stay; `rates`, when given, is the zone's whole list (matched by
 * id). A zone the old setting wrote becomes the zones API's: the setting no longer lists or replaces it.
 */
export async function updateZone(ctx: AppContext, storeId: string, zoneId: string, input: ZoneInput) {
  const updated = await withTransaction(ctx, async (trx) => {
    const locked = await trx('shippingZones').where({ storeId, id: zoneId }).forUpdate().first('id');
    if (!locked) throw notFound('Shipping zone');
    const [current] = await loadZones(trx, storeId, zoneId);
    const next = {
      countries: input.countries !== undefined ? uniqueList(input.countries) : current!.countries,
      regions: input.regions !== undefined ? uniqueList(input.regions) : current!.regions,
      postcodes: input.postcodes !== undefined ? uniqueList(input.postcodes) : current!.postcodes,
      rates: input.rates ?? current!.rates
    };
    checkZone(next);
    await trx('shippingZones')
      .where({ storeId, id: zoneId })
      .update({
        ...(input.name !== undefined ? { name: input.name } : {}),
        countries: next.countries,
        regions: next.regions,
        postcodes: next.postcodes,
        source: 'zones',
        updatedAt: trx.fn.now()
      });
    if (input.rates) await writeRates(trx, storeId, zoneId, input.rates);
    const [saved] = await loadZones(trx, storeId, zoneId);
    await recordAudit(ctx, trx, { storeId, action: 'shipping_zone.updated', resourceType: 'shipping_zone', resourceId: zoneId, before: toZoneDto(current!), after: toZoneDto(saved!) });
    return saved!;
  });
  await zonesChanged(ctx, storeId);
  return { zone: toZoneDto(updated) };
}

export async function deleteZone(ctx: AppContext, storeId: string, zoneId: string) {
  await withTransaction(ctx, async (trx) => {
    const [current] = await loadZones(trx, storeId, zoneId);
    if (!current) throw notFound('Shipping zone');
    await trx('shippingZones').where({ storeId, id: zoneId }).delete();
    await recordAudit(ctx, trx, { storeId, action: 'shipping_zone.deleted', resourceType: 'shipping_zone', resourceId: zoneId, before: toZoneDto(current) });
  });
  await zonesChanged(ctx, storeId);
  return { deleted: true, id: zoneId };
}

/**
 * The old setting's write path (`PATCH /admin/store { shippingMethods }`), in the store update's
 * transaction: the zones it wrote before are replaced by one zone per entry (its countries; none:
 * everywhere) with one flat rate of the entry's id, name, price and free-over amount. Zones made or
 * edited through the zones API stay. The caller drops the cache after its commit (forgetZones).
 */
export async function replaceSettingZones(trx: Transaction, storeId: string, methods: LegacyShippingMethod[]): Promise<void> {
  await trx('shippingZones').where({ storeId, source: 'store_setting' }).delete();
  if (!methods.length) return;
  const zones = (await trx('shippingZones')
    .insert(methods.map((method, position) => ({ storeId, name: method.name, countries: uniqueList(method.countries), position, source: 'store_setting' })))
    .returning(['id', 'position'])) as Array<{ id: string; position: number }>;
  const rows = zones.map((zone) => {
    const method = methods[zone.position]!;
    return rateColumns(storeId, zone.id, { id: method.id, name: method.name, type: 'flat', price: method.price, freeOver: method.freeOverAmount }, 0);
  });
  try {
    await trx.savepoint((savepoint) => savepoint('shippingRates').insert(rows));
  } catch (error) {
    if (!uniqueViolation(error)) throw error;
    throw conflict('conflict', 'A shipping method id is taken by a rate of a shipping zone', [{ path: 'shippingMethods', message: 'each id must be new or one of these methods' }]);
  }
}

/** The old setting as it reads now: the zones it wrote, one entry each (ids, prices as the rates have them). */
export async function settingShippingMethods(db: Sql, storeId: string): Promise<LegacyShippingMethod[]> {
  const zones = await loadZones(db, storeId);
  return zones
    .filter((zone) => zone.source === 'store_setting' && zone.rates.length)
    .map((zone) => {
      const rate = zone.rates[0]!;
      return { id: rate.id, name: rate.name, price: rate.price ?? 0, freeOverAmount: rate.freeOver, countries: zone.countries.length ? zone.countries : null };
    });
}
