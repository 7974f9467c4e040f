import { createHash } from 'node:crypto';
import { upsertExternalProducts, type ExternalProductRow } from '../catalog/index.js';
import { upsertExternalCustomers, type ExternalCustomerRow } from '../customers/index.js';
import type { EmitEvent } from '../../platform/events/domain-events.js';
import type { ExternalCustomer, ExternalProduct } from './client.js';
import type { Transaction } from '../../db/transaction.js';

export interface UpsertCounts {
  seen: number;
  changed: number;
  skipped: number;
}

const text = (value: unknown, max: number): string | null => (typeof value === 'string' && value.trim() ? value.trim().slice(0, max) : null);
const stamp = (value: unknown): string | null => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : null);

function slugFor(title: string, externalId: string): string {
  const base = title.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'product';
  const suffix = createHash('sha1').update(externalId).digest('hex').slice(0, 8);
  return `${base}-${suffix}`;
}

/**
 * One page of external products: what the external system sent, checked and trimmed here (its
 * format is this module's business), written by the catalog (whose tables they are, and which
 * tells storefronts of the change). An item without id, title or a valid price is skipped.
 */
export async function upsertProducts(trx: Transaction, emit: EmitEvent, storeId: string, items: ExternalProduct[]): Promise<UpsertCounts> {
  const seen = new Set<string>();
  const rows: ExternalProductRow[] = [];
  for (const item of items) {
    const id = item && (typeof item.id === 'string' || typeof item.id === 'number') ? String(item.id) : null;
    const title = text(item?.title, 500);
    const price = Number.isInteger(item?.price) && item.price >= 0 ? item.price : null;
    if (!id || !title || price === null || seen.has(id)) continue;
    seen.add(id);
    rows.push({
      externalId: id,
      title,
      slug: slugFor(title, id),
      description: text(item.description, 20_000) ?? '',
      sku: text(item.sku, 255),
      price,
      inventory: Number.isInteger(item.inventory) ? Math.max(0, item.inventory as number) : 0,
      updatedAt: stamp(item.updatedAt) ?? new Date(0).toISOString()
    });
  }
  const changed = await upsertExternalProducts(trx, emit, storeId, rows);
  return { seen: items.length, changed, skipped: items.length - rows.length };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** One page of external customers, checked here and written by the customers module. */
export async function upsertCustomers(trx: Transaction, storeId: string, items: ExternalCustomer[]): Promise<UpsertCounts> {
  const seenIds = new Set<string>();
  const seenEmails = new Set<string>();
  const rows: ExternalCustomerRow[] = [];
  for (const item of items) {
    const id = item && (typeof item.id === 'string' || typeof item.id === 'number') ? String(item.id) : null;
    const email = text(item?.email, 254)?.toLowerCase() ?? null;
    if (!id || !email || !EMAIL.test(email) || seenIds.has(id) || seenEmails.has(email)) continue;
    seenIds.add(id);
    seenEmails.add(email);
    rows.push({
      externalId: id,
      email,
      firstName: text(item.firstName, 100),
      lastName: text(item.lastName, 100),
      acceptsMarketing: item.acceptsMarketing === true,
      updatedAt: stamp(item.updatedAt) ?? new Date(0).toISOString()
    });
  }
  const changed = await upsertExternalCustomers(trx, storeId, rows);
  return { seen: items.length, changed, skipped: items.length - rows.length };
}
