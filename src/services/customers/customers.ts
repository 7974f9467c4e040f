import type { AppContext } from '../../context.js';
import { reactInTransaction } from '../../platform/events/domain-events.js';
import { containsPattern } from '../../db/like-patterns.js';
import { customerRecentOrders } from '../../platform/modules/registry.js';
import { conflict, notFound, uniqueViolation } from '../../errors.js';
import { keysetPage, sortOrder, type ListSorts, type PageRequest } from '../../platform/pagination.js';
import { withTransaction } from '../../platform/with-transaction.js';
import type { Sql } from '../../db/transaction.js';

export const EMAIL_MARKETING_STATES = ['subscribed', 'unsubscribed', 'not_subscribed'] as const;
export type EmailMarketing = (typeof EMAIL_MARKETING_STATES)[number];

export interface CustomerRow {
  id: string;
  storeId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  tags: string[];
  note: string | null;
  emailMarketing: EmailMarketing;
  emailMarketingUpdatedAt: Date | null;
  emailMarketingSource: string | null;
  emailMarketingIp: string | null;
  ordersCount: number;
  totalSpent: number;
  lastOrderAt: Date | null;
  source: string | null;
  externalId: string | null;
  /** Pays no tax at checkout (matched by the checkout email; docs/taxes.md). */
  taxExempt: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const toCustomerDto = (row: CustomerRow) => ({
  id: row.id,
  email: row.email,
  firstName: row.firstName,
  lastName: row.lastName,
  phone: row.phone,
  tags: row.tags ?? [],
  note: row.note,
  emailMarketing: row.emailMarketing,
  emailMarketingUpdatedAt: row.emailMarketingUpdatedAt,
  emailMarketingSource: row.emailMarketingSource,
  ordersCount: row.ordersCount,
  totalSpent: Number(row.totalSpent),
  lastOrderAt: row.lastOrderAt,
  taxExempt: Boolean(row.taxExempt),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});
export type CustomerDto = ReturnType<typeof toCustomerDto>;

const isoMs = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * toCustomerDto in SQL, over a customers row alias (the CSV import's webhook events are built by
 * its upsert statement). test/integration/webhooks/webhook-topics.test.ts compares the two.
 */
export const customerJsonSql = (c: string) => `jsonb_build_object(
    'id', ${c}.id, 'email', ${c}.email, 'firstName', ${c}.first_name, 'lastName', ${c}.last_name, 'phone', ${c}.phone,
    'tags', coalesce(to_jsonb(${c}.tags), '[]'::jsonb), 'note', ${c}.note, 'emailMarketing', ${c}.email_marketing,
    'emailMarketingUpdatedAt', ${isoMs(`${c}.email_marketing_updated_at`)}, 'emailMarketingSource', ${c}.email_marketing_source,
    'ordersCount', ${c}.orders_count, 'totalSpent', ${c}.total_spent, 'lastOrderAt', ${isoMs(`${c}.last_order_at`)},
    'taxExempt', ${c}.tax_exempt, 'createdAt', ${isoMs(`${c}.created_at`)}, 'updatedAt', ${isoMs(`${c}.updated_at`)})`;

/** The `name` sort's key; the same expression as its index (migration 20261126200000). */
const CUSTOMER_NAME_SORT_KEY = `lower(coalesce(customers.last_name, '') || ' ' || coalesce(customers.first_name, ''))`;

export const emailTaken = () => conflict('email_taken', 'Another customer of this store has this email', [{ path: 'email', message: 'email is taken' }]);

export interface CustomerFilters {
  q?: string | undefined;
  emailMarketing?: EmailMarketing | undefined;
  tag?: string | undefined;
  /** One of `sortValues(CUSTOMER_SORTS)`; `CUSTOMER_DEFAULT_SORT` when absent. */
  sort?: string | undefined;
}

/**
 * The admin list's sorts (`?sort=`, `-` for descending), each ending with the id so customers
 * created together (one import batch shares its timestamp) keep one order across pages. Each has an
 * index (store_id, key, id): the list index, and migration 20261126200000's.
 */
export const CUSTOMER_SORTS: ListSorts = {
  createdAt: { column: 'createdAt' },
  email: { column: 'sortKey', expression: 'lower(customers.email)', kinds: ['string', 'uuid'] },
  // Last name, then first name; a customer without a name sorts first.
  name: { column: 'sortKey', expression: CUSTOMER_NAME_SORT_KEY, kinds: ['string', 'uuid'] },
  totalSpent: { column: 'totalSpent', kinds: ['bigint', 'uuid'] }
};
export const CUSTOMER_DEFAULT_SORT = '-createdAt';

/** The text `?q=` searches; the same expression as the trigram index (migration 20261123002100). */
const CUSTOMER_SEARCH_TEXT = `(lower(email) || ' ' || lower(coalesce(first_name, '')) || ' ' || lower(coalesce(last_name, '')))`;

/**
 * Newest first (created, then id, descending) unless `sort` says otherwise. `q` matches anywhere in
 * the email, first name, last name or full name ("example.com", "ann smi").
 */
export async function listCustomers(ctx: AppContext, storeId: string, filters: CustomerFilters, page: PageRequest) {
  const query = ctx.db('customers').where({ storeId }).select('customers.*');
  if (filters.q) {
    const words = filters.q.trim().split(/\s+/).join(' ');
    query.whereRaw(`${CUSTOMER_SEARCH_TEXT} like ?`, [containsPattern(words)]);
  }
  if (filters.emailMarketing) query.where({ emailMarketing: filters.emailMarketing });
  if (filters.tag) query.whereRaw('tags @> array[?]::text[]', [filters.tag]);
  const order = sortOrder(CUSTOMER_SORTS, filters.sort ?? CUSTOMER_DEFAULT_SORT, CUSTOMER_DEFAULT_SORT);
  const result = await keysetPage<CustomerRow>(query, order, page);
  return { customers: result.items.map(toCustomerDto), nextCursor: result.nextCursor };
}

export async function findCustomerRow(db: Sql, storeId: string, customerId: string): Promise<CustomerRow | undefined> {
  return db('customers').where({ storeId, id: customerId }).first();
}

export async function getCustomer(ctx: AppContext, storeId: string, customerId: string) {
  const row = await findCustomerRow(ctx.db, storeId, customerId);
  if (!row) throw notFound('Customer');
  return { customer: toCustomerDto(row), recentOrders: await customerRecentOrders(ctx, storeId, customerId) };
}

export interface CustomerPatch {
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  tags?: string[];
  note?: string | null;
  emailMarketing?: EmailMarketing;
  taxExempt?: boolean;
}

export interface ConsentChange {
  source: string;
  ip?: string | null;
}

/** Columns that record a consent change: the state with the time, source and IP it changed. */
export function consentColumns(db: Sql, state: EmailMarketing, change: ConsentChange) {
  return { emailMarketing: state, emailMarketingUpdatedAt: db.fn.now(), emailMarketingSource: change.source, emailMarketingIp: change.ip ?? null };
}

export async function updateCustomer(ctx: AppContext, storeId: string, customerId: string, patch: CustomerPatch, change: ConsentChange) {
  try {
    return await withTransaction(ctx, async (trx) => {
      const current: CustomerRow | undefined = await trx('customers').where({ storeId, id: customerId }).forUpdate().first();
      if (!current) throw notFound('Customer');
      const { emailMarketing, ...fields } = patch;
      const columns: Record<string, unknown> = { ...fields, updatedAt: trx.fn.now() };
      if (emailMarketing && emailMarketing !== current.emailMarketing) Object.assign(columns, consentColumns(trx, emailMarketing, change));
      const [row] = await trx('customers').where({ storeId, id: customerId }).update(columns).returning('*');
      await reactInTransaction(ctx, trx, [{ type: 'customer.changed', storeId, customerIds: [customerId], change: 'updated' }]);
      return toCustomerDto(row);
    });
  } catch (error) {
    if (uniqueViolation(error) === 'customers_store_email_key') throw emailTaken();
    throw error;
  }
}

export interface NewCustomer {
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  tags?: string[];
  note?: string | null;
  emailMarketing?: EmailMarketing;
}

/**
 * A customer made by hand (POST /admin/customers): 409 email_taken when the store has the email.
 * A consent state other than not_subscribed is recorded with its source, like a PATCH's.
 */
export async function createCustomer(ctx: AppContext, storeId: string, input: NewCustomer, change: ConsentChange) {
  try {
    return await withTransaction(ctx, async (trx) => {
      const { emailMarketing = 'not_subscribed', tags = [], ...fields } = input;
      const columns: Record<string, unknown> = { ...fields, storeId, tags, emailMarketing };
      if (emailMarketing !== 'not_subscribed') Object.assign(columns, consentColumns(trx, emailMarketing, change));
      const [row] = await trx('customers').insert(columns).returning('*');
      await reactInTransaction(ctx, trx, [{ type: 'customer.changed', storeId, customerIds: [row.id], change: 'created' }]);
      return toCustomerDto(row);
    });
  } catch (error) {
    if (uniqueViolation(error) === 'customers_store_email_key') throw emailTaken();
    throw error;
  }
}

/**
 * Deletes a customer (404 when the store has none with this id). Their orders stay, no longer linked
 * (orders.customer_id ON DELETE SET NULL); their list memberships go with them.
 */
export async function deleteCustomer(ctx: AppContext, storeId: string, customerId: string): Promise<void> {
  // In a transaction, so the audit entry (written before its COMMIT) goes with the delete.
  const deleted = await withTransaction(ctx, (trx) => trx('customers').where({ storeId, id: customerId }).delete());
  if (!deleted) throw notFound('Customer');
}

/**
 * An order of this customer stopped counting in part or whole (refunded, cancelled): its orders
 * count and spend move by these deltas, in the caller's transaction (never below zero).
 */
export async function adjustCustomerTotals(db: Sql, storeId: string, customerId: string, delta: { orders: number; spent: number }): Promise<void> {
  if (delta.orders === 0 && delta.spent === 0) return;
  await db('customers')
    .where({ storeId, id: customerId })
    .update({
      ordersCount: db.raw('greatest(orders_count + ?, 0)', [delta.orders]),
      totalSpent: db.raw('greatest(total_spent + ?, 0)', [delta.spent]),
      updatedAt: db.fn.now()
    });
}
