/**
 * Draft orders (issue #35): orders a member puts together by hand, priced as a checkout prices a
 * cart (checkout's priceLines), their stock held through the catalog once completed or invoiced,
 * and the invoices whose public link pays them. Owns draft_orders and draft_order_payments. Turning
 * a draft into an order spans orders, payments and email: src/use-cases/complete-draft-order.ts.
 */
import type { Module } from '../../context.js';

export const draftOrdersModule: Module = { name: 'draft-orders' };
