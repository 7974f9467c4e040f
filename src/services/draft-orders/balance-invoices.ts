import type { Sql } from '../../db/transaction.js';
import { notFound } from '../../errors.js';
import { hashInvoiceToken, newInvoiceToken, storeOfInvoiceToken } from './drafts.js';

/**
 * Order balance invoices: what an edit added to a paid order, collected through a payment link
 * (the drafts' invoice machinery: the same token shape, the same public page and pay route, the
 * same "first payment kept, later ones refunded in full" rule). Orders open one inside the edit's
 * transaction; the payment's Stripe event marks it paid (use-cases/collect-order-balance.ts).
 */
export interface BalanceInvoiceRow {
  storeId: string;
  id: string;
  orderId: string;
  orderVersion: number;
  amount: number | string;
  currency: string;
  email: string;
  tokenHash: string;
  status: 'open' | 'paid' | 'void';
  paymentIntentId: string | null;
  refundedIntents: string[];
  /** What a later edit's lower total took back of a balance never paid (voided). */
  takenBack: number | string;
  createdBy: string | null;
  paidAt: Date | null;
  createdAt: Date;
}

/** Opens a balance invoice in the caller's transaction; answers its id and the link's token (only its hash is kept). */
export async function openBalanceInvoice(
  trx: Sql,
  input: { storeId: string; orderId: string; orderVersion: number; amount: number; currency: string; email: string; userId: string | null }
): Promise<{ id: string; token: string }> {
  const { token, hash } = newInvoiceToken(input.storeId);
  const [row] = (await trx('orderBalanceInvoices')
    .insert({
      storeId: input.storeId,
      orderId: input.orderId,
      orderVersion: input.orderVersion,
      amount: input.amount,
      currency: input.currency,
      email: input.email,
      tokenHash: hash,
      createdBy: input.userId
    })
    .returning('id')) as Array<{ id: string }>;
  return { id: row!.id, token };
}

/** Every balance invoice of the order, oldest first (one per edit that raised a paid order's total by link). */
export async function balanceInvoicesOf(db: Sql, storeId: string, orderId: string): Promise<BalanceInvoiceRow[]> {
  return db('orderBalanceInvoices').where({ storeId, orderId }).orderBy(['createdAt', 'id']);
}

/** The order's unpaid balance invoice, if any. */
export async function openBalanceOf(db: Sql, storeId: string, orderId: string): Promise<BalanceInvoiceRow | undefined> {
  return db('orderBalanceInvoices').where({ storeId, orderId, status: 'open' }).first();
}

/**
 * What the order's total holds that was never collected: its balances not paid (the link open, or
 * voided) less what later edits took back of them. Refunds and cancels give back only the rest.
 */
export async function uncollectedOf(db: Sql, storeId: string, orderId: string): Promise<number> {
  const row = (await db('orderBalanceInvoices')
    .where({ storeId, orderId })
    .whereIn('status', ['open', 'void'])
    .first(db.raw('coalesce(sum(amount - taken_back), 0) as uncollected'))) as { uncollected: string | number } | undefined;
  return Number(row?.uncollected ?? 0);
}

/**
 * An edit lowers a paid order's total by `amount`: what voided balances never collected is taken
 * back first (newest first, each row locked; the caller holds the order's lock, so edits take back
 * one at a time), and only the rest is the customer's to be refunded. An open link blocks edits, so
 * only voided balances are taken back. Answers how much was.
 */
export async function takeBackUncollected(trx: Sql, storeId: string, orderId: string, amount: number): Promise<number> {
  const rows = (await trx('orderBalanceInvoices')
    .where({ storeId, orderId, status: 'void' })
    .whereRaw('taken_back < amount')
    .orderBy([
      { column: 'createdAt', order: 'desc' },
      { column: 'id', order: 'desc' }
    ])
    .forUpdate()
    .select('id', 'amount', 'takenBack')) as Array<Pick<BalanceInvoiceRow, 'id' | 'amount' | 'takenBack'>>;
  let left = amount;
  for (const row of rows) {
    if (left <= 0) break;
    const take = Math.min(left, Number(row.amount) - Number(row.takenBack));
    await trx('orderBalanceInvoices')
      .where({ storeId, id: row.id })
      .update({ takenBack: trx.raw('taken_back + ?', [take]), updatedAt: trx.fn.now() });
    left -= take;
  }
  return amount - left;
}

/** The balance invoice of a link, or undefined when the token names none (a draft's, or nothing). */
export async function balanceOfToken(db: Sql, token: string, options: { lock?: boolean } = {}): Promise<BalanceInvoiceRow | undefined> {
  const storeId = storeOfInvoiceToken(token);
  if (!storeId) return undefined;
  const query = db('orderBalanceInvoices').where({ storeId, tokenHash: hashInvoiceToken(token) });
  if (options.lock) query.forUpdate();
  return query.first();
}

/** A balance invoice by id, locked for the caller's transaction; 404 for an unknown one. */
export async function lockBalanceInvoice(trx: Sql, storeId: string, id: string): Promise<BalanceInvoiceRow> {
  const row = (await trx('orderBalanceInvoices').where({ storeId, id }).forUpdate().first()) as BalanceInvoiceRow | undefined;
  if (!row) throw notFound('Invoice');
  return row;
}

/**
 * The locked invoice is paid: by this PaymentIntent (its link), or by hand (null: collected another
 * way and recorded by a member; no PaymentIntent holds it, so a refund gives it back by hand).
 */
export async function markBalancePaid(trx: Sql, row: BalanceInvoiceRow, paymentIntentId: string | null): Promise<BalanceInvoiceRow> {
  const [paid] = (await trx('orderBalanceInvoices')
    .where({ storeId: row.storeId, id: row.id })
    .update({ status: 'paid', paymentIntentId, paidAt: trx.fn.now(), updatedAt: trx.fn.now() })
    .returning('*')) as BalanceInvoiceRow[];
  return paid!;
}

/** A payment that came after the invoice was paid (or voided) was refunded in full. */
export async function noteBalanceRefund(db: Sql, row: BalanceInvoiceRow, paymentIntentId: string) {
  await db('orderBalanceInvoices')
    .where({ storeId: row.storeId, id: row.id })
    .update({ refundedIntents: db.raw('array_append(refunded_intents, ?)', [paymentIntentId]), updatedAt: db.fn.now() });
}

/**
 * The locked invoice voided by hand (POST /admin/orders/{id}/balance-invoices/{invoiceId}/void):
 * answers whether it was open (false: already void, or paid; the caller says which).
 */
export async function voidBalanceInvoice(trx: Sql, row: BalanceInvoiceRow): Promise<boolean> {
  const changed = await trx('orderBalanceInvoices').where({ storeId: row.storeId, id: row.id, status: 'open' }).update({ status: 'void', updatedAt: trx.fn.now() });
  return Number(changed) > 0;
}

/** An order cancelled: its open balance links stop asking (a payment made anyway is refunded in full). */
export async function voidBalanceInvoices(trx: Sql, storeId: string, orderId: string) {
  await trx('orderBalanceInvoices').where({ storeId, orderId, status: 'open' }).update({ status: 'void', updatedAt: trx.fn.now() });
}

/**
 * The order whose balance a Stripe PaymentIntent paid, across stores: Stripe's refund and charge
 * events name only the PaymentIntent, and a refund made in Stripe's dashboard on a balance payment
 * must still reach its order.
 */
export async function orderOfBalancePayment(db: Sql, paymentIntentId: string): Promise<{ storeId: string; orderId: string; amount: number } | undefined> {
  const row = (await db('orderBalanceInvoices')
    .comment('cross-store: stripe payment intent')
    .where({ paymentIntentId })
    .first('storeId', 'orderId', 'amount')) as { storeId: string; orderId: string; amount: string | number } | undefined;
  return row && { storeId: row.storeId, orderId: row.orderId, amount: Number(row.amount) };
}

/** The order's balances paid by link (each a payment of its own), newest first. */
export async function paidBalancesOf(db: Sql, storeId: string, orderId: string): Promise<Array<{ paymentIntentId: string; amount: number }>> {
  const rows = (await db('orderBalanceInvoices')
    .where({ storeId, orderId, status: 'paid' })
    .whereNotNull('paymentIntentId')
    .orderBy([{ column: 'paidAt', order: 'desc' }, { column: 'id', order: 'desc' }])
    .select('paymentIntentId', 'amount')) as Array<{ paymentIntentId: string; amount: string | number }>;
  return rows.map((row) => ({ paymentIntentId: row.paymentIntentId, amount: Number(row.amount) }));
}
