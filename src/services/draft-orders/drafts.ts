import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Sql, Transaction } from '../../db/transaction.js';
import { conflict, notFound, validationFailed } from '../../errors.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { withTransaction } from '../../platform/with-transaction.js';
import { resolveHandLines, restockUnits, takeUnits, type HandLineInput } from '../catalog/index.js';
import { isTaxExempt, priceLines, type TaxQuote } from '../checkout/index.js';
import type { TaxLine } from '../taxes/index.js';
import { redeemDiscount, releaseDiscount } from '../discounts/index.js';
import { cachedStore } from '../stores/index.js';

export const DRAFT_STATUSES = ['open', 'invoiced', 'completed'] as const;
export type DraftStatus = (typeof DRAFT_STATUSES)[number];

/** A line of a draft: a variant's (priced when saved) or a custom one (title and price given). */
export interface DraftLine {
  variantId: string | null;
  productId: string | null;
  title: string;
  sku: string | null;
  quantity: number;
  unitPrice: number;
  lineTotal: number;
  /** Pricing inputs kept with the line (a PATCH without lines prices them again): absent on drafts saved before taxes. */
  taxClass?: string | null;
  weightGrams?: number | null;
  requiresShipping?: boolean;
  /** The line's share of the discount and its tax lines, as a checkout session's snapshot line. */
  discountAmount?: number;
  taxLines?: TaxLine[];
}

export interface DraftShipping {
  /** The store rate's id; null for custom shipping. */
  rateId: string | null;
  title: string;
  /** The price asked (the rate's, or the custom one); what it costs this draft is `shippingTotal`. */
  price: number;
}

export interface ManualDiscount {
  type: 'percentage' | 'fixed_amount';
  value: number;
}

/** A `draft_orders` row. */
export interface DraftRow {
  storeId: string;
  id: string;
  status: DraftStatus;
  email: string | null;
  customerId: string | null;
  currency: string;
  lines: DraftLine[];
  shippingAddress: Record<string, unknown> | null;
  shipping: DraftShipping | null;
  discountCode: string | null;
  manualDiscount: ManualDiscount | null;
  note: string | null;
  tags: string[];
  subtotal: number | string;
  discountTotal: number | string;
  shippingTotal: number | string;
  total: number | string;
  taxTotal: number | string;
  pricesIncludeTax: boolean;
  shippingTaxLines: TaxLine[];
  taxProvider: string | null;
  taxReference: string | null;
  orderId: string | null;
  invoiceTokenHash: string | null;
  invoicedAt: Date | null;
  completedAt: Date | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type DraftLineInput = HandLineInput;

export interface DraftInput {
  email?: string | null;
  customerId?: string | null;
  lines?: DraftLineInput[];
  shippingAddress?: Record<string, unknown> | null;
  shippingRateId?: string | null;
  customShipping?: { title: string; price: number } | null;
  discountCode?: string | null;
  manualDiscount?: ManualDiscount | null;
  note?: string | null;
  tags?: string[];
}

export const toDraftDto = (row: DraftRow) => ({
  id: row.id,
  status: row.status,
  email: row.email,
  customerId: row.customerId,
  currency: row.currency,
  lines: row.lines.map(lineDto),
  shippingAddress: row.shippingAddress,
  shipping: row.shipping ? { rateId: row.shipping.rateId, title: row.shipping.title, price: Number(row.shippingTotal) } : null,
  discountCode: row.discountCode,
  manualDiscount: row.manualDiscount,
  note: row.note,
  tags: row.tags ?? [],
  subtotal: Number(row.subtotal),
  discountTotal: Number(row.discountTotal),
  shippingTotal: Number(row.shippingTotal),
  taxTotal: Number(row.taxTotal ?? 0),
  pricesIncludeTax: Boolean(row.pricesIncludeTax),
  shippingTaxLines: taxLinesOf(row.shippingTaxLines),
  total: Number(row.total),
  orderId: row.orderId,
  invoicedAt: row.invoicedAt,
  completedAt: row.completedAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});
export type DraftDto = ReturnType<typeof toDraftDto>;

const taxLinesOf = (lines: TaxLine[] | null | undefined) => (lines ?? []).map(({ name, rate, amount, jurisdiction }) => ({ name, rate, amount, jurisdiction }));

/** A line as the API shows it: its money and its tax (`taxAmount` the sum of its tax lines). */
function lineDto(line: DraftLine) {
  const taxLines = taxLinesOf(line.taxLines);
  return {
    variantId: line.variantId,
    productId: line.productId,
    title: line.title,
    sku: line.sku,
    quantity: line.quantity,
    unitPrice: line.unitPrice,
    lineTotal: Number(line.lineTotal),
    discountAmount: line.discountAmount ?? 0,
    taxAmount: taxLines.reduce((sum, tax) => sum + tax.amount, 0),
    taxLines
  };
}

/** Where a draft is taxed: its shipping address, else (a customer's draft) the address of the customer's latest order. */
async function taxAddressOf(db: Sql, storeId: string, shippingAddress: Record<string, unknown> | null, customerId: string | null) {
  let address = shippingAddress;
  if (!address?.country && customerId) {
    const last = (await db('orders').where({ storeId, customerId }).orderBy('createdAt', 'desc').first('shippingAddress')) as { shippingAddress: Record<string, unknown> } | undefined;
    address = last?.shippingAddress ?? null;
  }
  if (!address?.country) return null;
  const text = (key: string) => (typeof address![key] === 'string' && address![key] ? (address![key] as string) : undefined);
  return {
    country: String(address.country),
    region: text('region') ?? null,
    ...(text('postalCode') ? { postalCode: text('postalCode') } : {}),
    ...(text('city') ? { city: text('city') } : {}),
    ...(text('line1') ? { line1: text('line1') } : {})
  };
}

/** Everything a draft's row holds besides its identity, from what is asked merged onto what it was. */
async function buildDraft(ctx: AppContext, db: Sql, storeId: string, input: DraftInput, before: DraftRow | null, tax: { quote?: TaxQuote | null; noRemoteCall?: boolean } = {}) {
  const store = await cachedStore(ctx, storeId);
  let email = input.email === undefined ? (before?.email ?? null) : input.email;
  let customerId = input.customerId === undefined ? (before?.customerId ?? null) : input.customerId;
  if (input.customerId) {
    const customer = (await db('customers').where({ storeId, id: input.customerId }).first('id', 'email')) as { id: string; email: string } | undefined;
    if (!customer) throw validationFailed([{ path: 'customerId', message: 'not a customer of this store' }]);
    customerId = customer.id;
    if (input.email === undefined) email = customer.email;
  }
  const resolved: DraftLine[] = input.lines
    ? (await resolveHandLines(db, storeId, input.lines, 'lines')).map((line) => ({ ...line, lineTotal: line.unitPrice * line.quantity }))
    : (before?.lines ?? []);
  const shippingAddress = input.shippingAddress === undefined ? (before?.shippingAddress ?? null) : input.shippingAddress;
  // Shipping and discount: each given kind replaces the other (a rate or custom shipping, a code or a manual discount).
  let shippingRateId = before?.shipping?.rateId ?? null;
  let customShipping = before?.shipping && !before.shipping.rateId ? { title: before.shipping.title, price: before.shipping.price } : null;
  if (input.shippingRateId !== undefined || input.customShipping !== undefined) {
    shippingRateId = input.shippingRateId ?? null;
    customShipping = input.customShipping ?? null;
  }
  let discountCode = before?.discountCode ?? null;
  let manualDiscount = before?.manualDiscount ?? null;
  if (input.discountCode !== undefined || input.manualDiscount !== undefined) {
    discountCode = input.discountCode ?? null;
    manualDiscount = input.manualDiscount ?? null;
  }
  // Taxed as a checkout at the same address would be: the store's provider and table, the lines' classes, an exempt customer pays none.
  const priced = await priceLines(ctx, db, store.id, {
    lines: resolved.map((line) => ({ unitPrice: line.unitPrice, quantity: line.quantity, taxClass: line.taxClass ?? null, weightGrams: line.weightGrams ?? null, requiresShipping: line.requiresShipping ?? true })),
    discountCode,
    manualDiscount,
    shippingRateId,
    customShipping,
    country: (shippingAddress?.country as string | undefined) ?? null,
    region: (shippingAddress?.region as string | undefined) ?? null,
    postalCode: (shippingAddress?.postalCode as string | undefined) ?? null,
    tax: {
      address: await taxAddressOf(db, storeId, shippingAddress, customerId),
      exempt: await isTaxExempt(db, storeId, email, customerId),
      quote: tax.quote ?? null,
      noRemoteCall: tax.noRemoteCall ?? false
    }
  });
  const lines = resolved.map((line, index) => ({ ...line, discountAmount: priced.tax.lineDiscounts[index] ?? 0, taxLines: priced.tax.lineTaxes[index] ?? [] }));
  const values = {
    email,
    customerId,
    currency: store.currency,
    lines: JSON.stringify(lines),
    shippingAddress: shippingAddress ? JSON.stringify(shippingAddress) : null,
    shipping: priced.shipping ? JSON.stringify({ rateId: priced.shipping.id, title: priced.shipping.name, price: shippingRateId ? priced.shipping.price : customShipping!.price }) : null,
    discountCode: priced.discount?.code ?? null,
    manualDiscount: manualDiscount ? JSON.stringify(manualDiscount) : null,
    note: input.note === undefined ? (before?.note ?? null) : input.note,
    tags: input.tags ?? before?.tags ?? [],
    subtotal: priced.totals.subtotal,
    discountTotal: priced.totals.discountTotal,
    shippingTotal: priced.totals.shippingTotal,
    total: priced.totals.total,
    taxTotal: priced.totals.taxTotal,
    pricesIncludeTax: priced.totals.pricesIncludeTax,
    shippingTaxLines: JSON.stringify(priced.tax.shippingTaxLines),
    taxProvider: priced.tax.provider,
    taxReference: priced.tax.reference
  };
  return { values, quote: priced.quote };
}

export async function createDraftOrder(ctx: AppContext, storeId: string, input: DraftInput, userId: string | null) {
  const { values } = await buildDraft(ctx, ctx.db, storeId, input, null);
  // In a transaction, so the audit entry (written before its COMMIT) goes with the draft.
  const [row] = (await withTransaction(ctx, (trx) => trx('draftOrders').insert({ storeId, ...values, createdBy: userId }).returning('*'))) as DraftRow[];
  return { draftOrder: toDraftDto(row!) };
}

export async function getDraftOrder(ctx: AppContext, storeId: string, draftId: string) {
  const row = (await ctx.db('draftOrders').where({ storeId, id: draftId }).first()) as DraftRow | undefined;
  if (!row) throw notFound('Draft order');
  return { draftOrder: toDraftDto(row) };
}

export async function listDraftOrders(ctx: AppContext, storeId: string, filters: { status?: DraftStatus }, page: PageRequest) {
  const query = ctx.db('draftOrders').where({ storeId });
  if (filters.status) query.where({ status: filters.status });
  const result = await keysetPage<DraftRow>(query, { column: 'createdAt', direction: 'desc' }, page);
  return { draftOrders: result.items.map(toDraftDto), nextCursor: result.nextCursor };
}

const notOpen = (row: DraftRow) =>
  conflict('conflict', `This draft order is ${row.status}: only an open draft changes`, [{ path: 'draftOrderId', message: `draft is ${row.status}` }]);

/** The draft, locked for the caller's transaction; 404 for another store's. */
export async function lockDraft(trx: Sql, storeId: string, draftId: string): Promise<DraftRow> {
  const row = (await trx('draftOrders').where({ storeId, id: draftId }).forUpdate().first()) as DraftRow | undefined;
  if (!row) throw notFound('Draft order');
  return row;
}

export async function updateDraftOrder(ctx: AppContext, storeId: string, draftId: string, input: DraftInput) {
  // A remote tax provider (Stripe Tax) is asked before the draft is locked, on the draft as it is
  // now; under the lock the same amounts reuse its answer (others: 409, the draft changed meanwhile).
  const current = (await ctx.db('draftOrders').where({ storeId, id: draftId }).first()) as DraftRow | undefined;
  if (!current) throw notFound('Draft order');
  if (current.status !== 'open') throw notOpen(current);
  const remote = (await cachedStore(ctx, storeId)).taxProvider === 'stripe_tax';
  const quote = remote ? (await buildDraft(ctx, ctx.db, storeId, input, current)).quote : null;
  return withTransaction(ctx, async (trx) => {
    const before = await lockDraft(trx, storeId, draftId);
    if (before.status !== 'open') throw notOpen(before);
    const { values } = await buildDraft(ctx, trx, storeId, input, before, { quote, noRemoteCall: remote });
    const [row] = (await trx('draftOrders').where({ storeId, id: draftId }).update({ ...values, updatedAt: trx.fn.now() }).returning('*')) as DraftRow[];
    return { draftOrder: toDraftDto(row!) };
  });
}

/** Deletes an open or invoiced draft; an invoiced one gives its held stock and discount use back (its link stops working). */
export async function deleteDraftOrder(ctx: AppContext, storeId: string, draftId: string, userId: string | null) {
  const backInStock = await withTransaction(ctx, async (trx, emit) => {
    const row = await lockDraft(trx, storeId, draftId);
    if (row.status === 'completed') throw notOpen(row);
    let back: string[] = [];
    if (row.status === 'invoiced') {
      back = await releaseDraftStock(trx, row, userId);
      if (back.length) emit({ type: 'inventory.changed', storeId, variantIds: back });
    }
    await trx('draftOrders').where({ storeId, id: draftId }).delete();
    return back;
  });
  return { deleted: true, backInStock };
}

/** The units of each variant line. */
export function draftUnits(row: Pick<DraftRow, 'lines'>) {
  return row.lines.filter((line) => line.variantId).map((line) => ({ variantId: line.variantId!, quantity: line.quantity, title: line.title }));
}

/**
 * Holds a locked open draft's stock and its discount's use (catalog's takeUnits, discounts'
 * redeemDiscount): 409 `insufficient_inventory` naming a line whose stock is not there. Returns
 * the variants it sold out.
 */
export async function holdDraftStock(trx: Transaction, row: DraftRow, userId: string | null): Promise<string[]> {
  if (row.status !== 'open') throw notOpen(row);
  if (row.lines.length === 0) throw validationFailed([{ path: 'lines', message: 'a draft needs at least one line to complete' }]);
  if (!row.email) throw validationFailed([{ path: 'email', message: 'a draft needs an email or a customer to complete' }]);
  if (!row.shippingAddress) throw validationFailed([{ path: 'shippingAddress', message: 'a draft needs a shipping address to complete' }]);
  const soldOut = await takeUnits(trx, row.storeId, draftUnits(row), { userId, reason: `draft order ${row.id} completed`, code: 'sale' });
  if (row.discountCode) {
    const discount = (await trx('discounts').where({ storeId: row.storeId }).whereRaw('lower(code) = lower(?)', [row.discountCode]).first('id')) as { id: string } | undefined;
    if (discount) await redeemDiscount(trx, row.storeId, discount.id, Number(row.subtotal));
  }
  return soldOut;
}

/** Gives an invoiced draft's held stock and discount use back (the draft is deleted). */
async function releaseDraftStock(trx: Transaction, row: DraftRow, userId: string | null): Promise<string[]> {
  const units = new Map<string, number>();
  for (const line of draftUnits(row)) units.set(line.variantId, (units.get(line.variantId) ?? 0) + line.quantity);
  const back = await restockUnits(trx, row.storeId, units, { userId, reason: `draft order ${row.id} deleted`, code: 'cancel' });
  if (row.discountCode) {
    const discount = (await trx('discounts').where({ storeId: row.storeId }).whereRaw('lower(code) = lower(?)', [row.discountCode]).first('id')) as { id: string } | undefined;
    if (discount) await releaseDiscount(trx, row.storeId, discount.id);
  }
  return back;
}

export const hashInvoiceToken = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * An invoice link's token: the store's id (so the link finds its store without a cross-store
 * lookup) and 32 random bytes; only its hash is stored.
 */
export function newInvoiceToken(storeId: string) {
  const token = `${Buffer.from(storeId.replace(/-/g, ''), 'hex').toString('base64url')}.${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashInvoiceToken(token) };
}

export const invoiceUrl = (ctx: AppContext, token: string) => `${ctx.config.appUrl}/api/v1/public/invoices/${token}`;

/** The store a token names, or null when it names none. */
export function storeOfInvoiceToken(token: string): string | null {
  const [prefix] = token.split('.');
  const hex = Buffer.from(prefix ?? '', 'base64url').toString('hex');
  if (hex.length !== 32) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The invoiced (or completed) draft of a link; 404 for an unknown, tampered or deleted one. */
export async function draftOfToken(db: Sql, token: string, options: { lock?: boolean } = {}): Promise<DraftRow> {
  const storeId = storeOfInvoiceToken(token);
  if (!storeId) throw notFound('Invoice');
  const query = db('draftOrders').where({ storeId, invoiceTokenHash: hashInvoiceToken(token) });
  if (options.lock) query.forUpdate();
  const row = (await query.first()) as DraftRow | undefined;
  if (!row) throw notFound('Invoice');
  return row;
}

/** The locked draft becomes invoiced: its stock is held (holdDraftStock), its link's hash kept. */
export async function markDraftInvoiced(trx: Sql, row: DraftRow, tokenHash: string) {
  await trx('draftOrders').where({ storeId: row.storeId, id: row.id }).update({ status: 'invoiced', invoiceTokenHash: tokenHash, invoicedAt: trx.fn.now(), updatedAt: trx.fn.now() });
}

/** The locked draft became this order. */
export async function markDraftCompleted(trx: Sql, row: DraftRow, orderId: string) {
  await trx('draftOrders').where({ storeId: row.storeId, id: row.id }).update({ status: 'completed', orderId, completedAt: trx.fn.now(), updatedAt: trx.fn.now() });
}

/** A `draft_order_payments` row. */
export interface DraftPaymentRow {
  storeId: string;
  id: string;
  draftOrderId: string;
  paymentIntentId: string;
  amount: number | string;
  status: 'started' | 'kept' | 'refunded';
  stripeRefundId: string | null;
}

export async function recordDraftPayment(db: Sql, row: DraftRow, paymentIntentId: string, amount: number) {
  await db('draftOrderPayments').insert({ storeId: row.storeId, draftOrderId: row.id, paymentIntentId, amount }).onConflict(['storeId', 'paymentIntentId']).ignore();
}

export async function findDraftPayment(db: Sql, storeId: string, paymentIntentId: string): Promise<DraftPaymentRow | undefined> {
  return db('draftOrderPayments').where({ storeId, paymentIntentId }).first();
}

export async function setDraftPaymentStatus(db: Sql, storeId: string, paymentIntentId: string, status: DraftPaymentRow['status'], stripeRefundId: string | null = null) {
  await db('draftOrderPayments')
    .where({ storeId, paymentIntentId })
    .update({ status, ...(stripeRefundId ? { stripeRefundId } : {}), updatedAt: db.fn.now() });
}

export async function draftPayments(db: Sql, storeId: string, draftId: string): Promise<DraftPaymentRow[]> {
  return db('draftOrderPayments').where({ storeId, draftOrderId: draftId }).orderBy(['createdAt', 'id']);
}

/** What the public invoice page shows: the store, the lines and totals, whether it is paid. */
export async function describeInvoice(ctx: AppContext, token: string) {
  const row = await draftOfToken(ctx.db, token);
  const store = await cachedStore(ctx, row.storeId);
  return {
    invoice: {
      kind: 'draft_order' as const,
      orderNumber: null,
      status: row.status === 'completed' ? ('paid' as const) : ('open' as const),
      email: row.email,
      currency: row.currency,
      lines: row.lines.map((line) => {
        const { title, quantity, unitPrice, lineTotal, taxAmount } = lineDto(line);
        return { title, quantity, unitPrice, lineTotal, taxAmount };
      }),
      subtotal: Number(row.subtotal),
      discountTotal: Number(row.discountTotal),
      shippingTotal: Number(row.shippingTotal),
      taxTotal: Number(row.taxTotal ?? 0),
      pricesIncludeTax: Boolean(row.pricesIncludeTax),
      total: Number(row.total)
    },
    store: { name: store.name }
  };
}
