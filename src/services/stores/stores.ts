import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { checkedSmtpAddress, type EmailSettingsInput, readEmailSettings, toEmailSettingsDto, writeEmailSettings } from '../email/index.js';
import { bumpStorefrontVersion } from '../catalog/index.js';
import { dashboardFigures, storeCurrencyLocked } from '../../platform/modules/registry.js';
import { SingleFlight } from '../../platform/cache/single-flight.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Transaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/index.js';
import { cachedZones, forgetZones, namedCountries, replaceSettingZones, settingShippingMethods, type LegacyShippingMethod } from '../shipping/index.js';

/** The old `shippingMethods` setting's entry: one shipping zone with one flat rate (docs/shipping.md). */
export type ShippingMethod = LegacyShippingMethod;

export interface StoreRow {
  id: string;
  name: string;
  slug: string;
  currency: string;
  contactEmail: string | null;
  timezone: string;
  // The `shipping_methods` column is deprecated: the old setting still writes it, nothing reads it
  // (shipping zones are the truth; `shippingMethods` in the settings is read from them).
  manualPaymentsEnabled: boolean;
  /** An unpaid manual-payment order is cancelled (its stock released) this many days after it was placed. */
  manualPaymentDays: number;
  logoUrl: string | null;
  newsletterDoubleOptIn: boolean;
  /** Messages per second for this store's campaigns; null = the platform default. */
  marketingSendRate: number | null;
  /** Base of links to the shop (order tracking); null = the platform's APP_URL. */
  storefrontUrl: string | null;
  storefrontCacheMaxAge: number;
  /** How long the store keeps its audit entries (issue #36; purged by the audit-retention job). */
  auditRetentionDays: number;
  storefrontCacheStaleWhileRevalidate: number;
  /** VAT style: prices (and shipping prices) include the tax, which is extracted from them (docs/taxes.md). */
  pricesIncludeTax: boolean;
  /** Who computes the tax: the built-in rate tables or Stripe Tax (services/taxes/providers.ts). */
  taxProvider: 'rates' | 'stripe_tax';
  createdAt: Date;
  updatedAt: Date;
}

export interface UpdateStoreInput {
  name?: string;
  contactEmail?: string | null;
  timezone?: string;
  currency?: string;
  shippingMethods?: Array<{ id?: string; name: string; price: number; freeOverAmount?: number | null; countries?: string[] | null }>;
  manualPaymentsEnabled?: boolean;
  manualPaymentDays?: number;
  logoUrl?: string | null;
  newsletterDoubleOptIn?: boolean;
  marketingSendRate?: number | null;
  storefrontUrl?: string | null;
  storefrontCacheMaxAge?: number;
  auditRetentionDays?: number;
  storefrontCacheStaleWhileRevalidate?: number;
  pricesIncludeTax?: boolean;
  taxProvider?: 'rates' | 'stripe_tax';
  email?: EmailSettingsInput;
}

const storefrontStoreKey = (storeId: string) => `sfstore:${storeId}`;
const storeRowKey = (storeId: string) => `store:${storeId}`;

export async function findStore(ctx: AppContext, storeId: string): Promise<StoreRow> {
  const store = await ctx.db('stores').where({ id: storeId }).first();
  if (!store) throw notFound('Store');
  return store;
}

/**
 * The store row for the shopper's hot path (carts, checkout, order mail), from the per-process
 * LocalCache: `updateStore` drops it in every process (at once here, by pub/sub elsewhere, and
 * within STOREFRONT_CACHE_TTL_MS if a message is lost). Saves one read on every cart and checkout
 * step; admin reads keep `findStore`, which always reads the row.
 */
export async function cachedStore(ctx: AppContext, storeId: string): Promise<StoreRow> {
  const key = storeRowKey(storeId);
  const cached = ctx.cache.get<StoreRow>(key);
  if (cached) return cached;
  const generation = ctx.cache.generation();
  const store = await findStore(ctx, storeId);
  ctx.cache.set(key, store, generation);
  return store;
}

export function toStoreSettingsDto(store: StoreRow, email: ReturnType<typeof toEmailSettingsDto>, shippingMethods: ShippingMethod[]) {
  return {
    id: store.id,
    name: store.name,
    slug: store.slug,
    currency: store.currency,
    contactEmail: store.contactEmail,
    timezone: store.timezone,
    shippingMethods,
    manualPaymentsEnabled: store.manualPaymentsEnabled,
    manualPaymentDays: store.manualPaymentDays,
    logoUrl: store.logoUrl,
    newsletterDoubleOptIn: store.newsletterDoubleOptIn,
    marketingSendRate: store.marketingSendRate,
    storefrontUrl: store.storefrontUrl,
    storefrontCacheMaxAge: store.storefrontCacheMaxAge,
    auditRetentionDays: store.auditRetentionDays,
    storefrontCacheStaleWhileRevalidate: store.storefrontCacheStaleWhileRevalidate,
    pricesIncludeTax: store.pricesIncludeTax,
    taxProvider: store.taxProvider,
    email,
    createdAt: store.createdAt,
    updatedAt: store.updatedAt
  };
}

export async function getStoreSettings(ctx: AppContext, storeId: string) {
  const [store, email, shippingMethods] = await Promise.all([findStore(ctx, storeId), readEmailSettings(ctx.db, storeId), settingShippingMethods(ctx.db, storeId)]);
  return toStoreSettingsDto(store, toEmailSettingsDto(email), shippingMethods);
}

type Dashboard = Awaited<ReturnType<typeof computeDashboard>>;
const dashboardFlights = new WeakMap<AppContext, SingleFlight<Dashboard>>();
const dashboardFlight = (ctx: AppContext) => {
  let flight = dashboardFlights.get(ctx);
  if (!flight) dashboardFlights.set(ctx, (flight = new SingleFlight<Dashboard>()));
  return flight;
};

/**
 * The admin dashboard: store settings, headline numbers and what is left to set up. A dozen
 * module reads make one; concurrent requests for the same store share the one in flight (a busy
 * team or an auto-refreshing screen must not multiply them), and a settings change starts afresh.
 */
export function getDashboard(ctx: AppContext, storeId: string): Promise<Dashboard> {
  return dashboardFlight(ctx).run(storeId, () => computeDashboard(ctx, storeId));
}

async function computeDashboard(ctx: AppContext, storeId: string) {
  const [store, figures] = await Promise.all([getStoreSettings(ctx, storeId), dashboardFigures(ctx, storeId)]);
  return {
    store,
    stats: figures.stats,
    setup: { ...figures.setup, emailConfigured: Boolean(store.email.smtp) || Boolean(ctx.config.smtpUrl) },
    recentOrders: figures.recentOrders,
    openIssues: figures.openIssues
  };
}

/** A new store (signup), in the caller's transaction. */
export async function insertStore(trx: Transaction, input: { name: string; slug: string; contactEmail: string }): Promise<{ id: string; name: string; slug: string }> {
  const [store] = await trx('stores').insert(input).returning(['id', 'name', 'slug']);
  return store;
}

export async function updateStore(ctx: AppContext, storeId: string, input: UpdateStoreInput) {
  if (input.email?.smtp?.host) await checkedSmtpAddress(input.email.smtp.host, ctx.config.allowPrivateSmtpHosts);
  await withTransaction(ctx, async (trx) => {
    const current: StoreRow | undefined = await trx('stores').where({ id: storeId }).forUpdate().first();
    if (!current) throw notFound('Store');
    const changes: Record<string, unknown> = {};
    for (const key of ['name', 'contactEmail', 'timezone', 'manualPaymentsEnabled', 'manualPaymentDays', 'logoUrl', 'newsletterDoubleOptIn', 'storefrontCacheMaxAge', 'storefrontCacheStaleWhileRevalidate', 'auditRetentionDays', 'pricesIncludeTax', 'taxProvider'] as const) {
      if (input[key] !== undefined) changes[key] = input[key];
    }
    if (input.storefrontUrl !== undefined) changes.storefrontUrl = input.storefrontUrl?.replace(/\/+$/, '') ?? null;
    // The platform caps every store's send rate; asking for more stores the cap.
    if (input.marketingSendRate !== undefined) {
      changes.marketingSendRate = input.marketingSendRate === null ? null : Math.min(input.marketingSendRate, ctx.config.marketing.sendRateCap);
    }
    if (input.currency !== undefined && input.currency !== current.currency) {
      if (await storeCurrencyLocked(ctx, trx, storeId)) {
        throw conflict('conflict', 'The currency cannot change once the store has orders', [{ path: 'currency', message: 'store already has orders' }]);
      }
      changes.currency = input.currency;
    }
    if (input.shippingMethods !== undefined) {
      const methods: ShippingMethod[] = input.shippingMethods.map((m) => ({
        id: m.id ?? randomUUID(),
        name: m.name,
        price: m.price,
        freeOverAmount: m.freeOverAmount ?? null,
        countries: m.countries?.length ? m.countries : null
      }));
      // Compatibility write path: the zones this setting wrote are replaced (one per entry, one flat
      // rate of the same id); the deprecated column keeps the list as given, for whoever still reads it.
      changes.shippingMethods = JSON.stringify(methods);
      await replaceSettingZones(trx, storeId, methods);
    }
    // Email settings live in their own table; they are still a change of the store.
    if (Object.keys(changes).length || input.email) await trx('stores').where({ id: storeId }).update({ ...changes, updatedAt: trx.fn.now() });
    if (input.email) await writeEmailSettings(trx, ctx.config.encryptionKey, storeId, input.email);
    // Email settings (SMTP password included) are recorded redacted: which keys were sent, not their values.
    const before = Object.fromEntries(Object.keys(changes).map((key) => [key, (current as unknown as Record<string, unknown>)[key]]));
    const after = { ...changes, ...(changes.shippingMethods ? { shippingMethods: JSON.parse(changes.shippingMethods as string) } : {}) };
    if (input.email) Object.assign(after, { email: Object.fromEntries(Object.keys(input.email).map((key) => [key, 'changed'])) });
    await recordAudit(ctx, trx, { storeId, action: 'store.settings_updated', resourceType: 'store', resourceId: storeId, before, after });
  });
  dashboardFlight(ctx).forget(storeId);
  await ctx.cache.invalidate(storefrontStoreKey(storeId), storeRowKey(storeId));
  if (input.shippingMethods !== undefined) await forgetZones(ctx, storeId);
  await bumpStorefrontVersion(ctx, storeId);
  return getStoreSettings(ctx, storeId);
}

/**
 * What a storefront shows about its store; cached, invalidated by `updateStore`. Its
 * `shippingCountries` are the countries the store's shipping zones name (their own cache).
 */
export async function getStorefrontStore(ctx: AppContext, storeId: string) {
  const [store, zones] = await Promise.all([storefrontStoreFields(ctx, storeId), cachedZones(ctx, storeId)]);
  return {
    store: {
      name: store.name,
      slug: store.slug,
      currency: store.currency,
      contactEmail: store.contactEmail,
      shippingCountries: namedCountries(zones),
      logoUrl: store.logoUrl,
      pricesIncludeTax: store.pricesIncludeTax
    }
  };
}

type StorefrontStoreFields = Pick<StoreRow, 'name' | 'slug' | 'currency' | 'contactEmail' | 'logoUrl' | 'pricesIncludeTax'>;

async function storefrontStoreFields(ctx: AppContext, storeId: string): Promise<StorefrontStoreFields> {
  const key = storefrontStoreKey(storeId);
  const cached = ctx.cache.get<StorefrontStoreFields>(key);
  if (cached) return cached;
  const { name, slug, currency, contactEmail, logoUrl, pricesIncludeTax } = await findStore(ctx, storeId);
  const fields = { name, slug, currency, contactEmail, logoUrl, pricesIncludeTax };
  ctx.cache.set(key, fields);
  return fields;
}
