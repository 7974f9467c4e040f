import { userActor, type EditInput, type ExchangeInput } from '../../services/orders/index.js';
import { changeOrder } from '../../use-cases/change-order.js';
import { listOrderBalances, markOrderBalancePaid, voidOrderBalance } from '../../use-cases/collect-order-balance.js';
import { ADMINS, ANY_MEMBER } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { idempotent } from '../idempotency.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { balanceInvoiceListResponse, balanceMarkPaidPayload, balanceInvoiceResponse, editCommittedResponse, editPayload, editPreviewResponse, editQuery, exchangePayload } from './schemas.js';

export const editOrderRoute = idempotent(
  adminRoute(ANY_MEMBER, {
    method: 'POST',
    path: '/admin/orders/{orderId}/edits',
    options: {
      plugins: { openapi: { errors: [409, 502] } },
      description:
        "Edit an order before it ships: add lines (a variant or a custom title and price), change or remove unfulfilled lines (409 already_fulfilled for a shipped, refunded or returned one), change shipping (a store rate or custom). Totals are priced and taxed as a checkout's (the order's address; 503 tax_provider_unavailable when the tax provider fails, nothing written); ?dryRun=true answers 200 { edit: { difference, totals } } and writes nothing. The commit (201) moves stock (409 insufficient_inventory naming a line), collects a higher total of a paid order (collect: mark_paid by hand, or invoice: a payment link emailed to the customer; else 422) or refunds a lower one (Stripe or manual; owner or admin only, else 403), records the change on the timeline, sends order.updated, emails the customer when notifyCustomer. version: 409 if the order changed since",
      tags: ['orders'],
      validate: { params: idParams('orderId'), query: editQuery, payload: editPayload },
      response: { status: { 200: editPreviewResponse, 201: editCommittedResponse } },
      handler: adminHandler<{ orderId: string }, EditInput, { dryRun: boolean }>(async ({ ctx, storeId, actor, params, payload, query, h }) => {
        const result = await changeOrder(ctx, storeId, params.orderId, 'edit', payload, userActor(actor.userId), { dryRun: query.dryRun, mayRefund: ADMINS.includes(actor.role) });
        return query.dryRun ? result : h.response(result).code(201);
      })
    }
  })
);

export const exchangeOrderRoute = idempotent(
  adminRoute(ANY_MEMBER, {
    method: 'POST',
    path: '/admin/orders/{orderId}/exchanges',
    options: {
      plugins: { openapi: { errors: [409, 502] } },
      description:
        "Exchange: units taken back (returned, restocked once when restock is true, as returns do) and new lines in one operation; the new lines are unfulfilled, to ship as a new fulfilment of the same order. The order bills the kept and new units; the difference is collected (collect: mark_paid or invoice for a paid order) or refunded (owner or admin only). ?dryRun=true previews",
      tags: ['orders'],
      validate: { params: idParams('orderId'), query: editQuery, payload: exchangePayload },
      response: { status: { 200: editPreviewResponse, 201: editCommittedResponse } },
      handler: adminHandler<{ orderId: string }, ExchangeInput, { dryRun: boolean }>(async ({ ctx, storeId, actor, params, payload, query, h }) => {
        const result = await changeOrder(ctx, storeId, params.orderId, 'exchange', payload, userActor(actor.userId), { dryRun: query.dryRun, mayRefund: ADMINS.includes(actor.role) });
        return query.dryRun ? result : h.response(result).code(201);
      })
    }
  })
);

/**
 * Voiding a balance link moves no money (it stops asking for it), so whoever may edit the order may
 * void what an edit asks: every member, as edits. Idempotent by nature (a repeat answers the void
 * invoice) and with an Idempotency-Key.
 */
export const voidBalanceInvoiceRoute = idempotent(
  adminRoute(ANY_MEMBER, {
    method: 'POST',
    path: '/admin/orders/{orderId}/balance-invoices/{invoiceId}/void',
    options: {
      plugins: { openapi: { errors: [409] } },
      description:
        "Void an edit's open balance payment link (collect: invoice): its public page and pay button then refuse it (invoice_void, Gone); a payment already under way is refunded in full when it succeeds. 409 when the balance is already paid (refund the order instead); a void invoice answers again unchanged. The timeline records balance_voided and order.updated is sent; the order may be edited again",
      tags: ['orders'],
      validate: { params: idParams('orderId', 'invoiceId') },
      response: { status: { 200: balanceInvoiceResponse } },
      handler: adminHandler<{ orderId: string; invoiceId: string }>(({ ctx, storeId, actor, params }) =>
        voidOrderBalance(ctx, storeId, params.orderId, params.invoiceId, userActor(actor.userId))
      )
    }
  })
);

/**
 * A balance collected another way than its link, recorded as the order's manual mark-paid is: by
 * any member, with an Idempotency-Key (it moves what the order holds), a repeat changing nothing.
 */
export const markBalancePaidRoute = idempotent(
  adminRoute(ANY_MEMBER, {
    method: 'POST',
    path: '/admin/orders/{orderId}/balance-invoices/{invoiceId}/mark-paid',
    options: {
      plugins: { openapi: { errors: [409] } },
      description:
        "Record an edit's balance as collected another way (cash, a bank transfer) than its payment link, open or voided: the invoice becomes paid (its link then answers paid and a payment by it arriving later is refunded in full), what is still owed of it (its amount less what later edits took back) becomes refundable, given back by hand. 409 when its link already paid it, when nothing of it is owed any more, and for a cancelled order; a repeat answers the paid invoice unchanged. reference and note go on the timeline (paid, byHand); order.updated is sent",
      tags: ['orders'],
      validate: { params: idParams('orderId', 'invoiceId'), payload: balanceMarkPaidPayload },
      response: { status: { 200: balanceInvoiceResponse } },
      handler: adminHandler<{ orderId: string; invoiceId: string }, { reference?: string; note?: string } | null>(({ ctx, storeId, actor, params, payload }) =>
        markOrderBalancePaid(ctx, storeId, params.orderId, params.invoiceId, payload ?? {}, userActor(actor.userId))
      )
    }
  })
);

export const listBalanceInvoicesRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/orders/{orderId}/balance-invoices',
  options: {
    description:
      "The order's balance payment links (one per edit that raised a paid order's total with collect: invoice), oldest first: open, paid (by the link, or by hand: paymentIntentId null) or void. Not paged: an order has one open at a time, and each edit adds at most one",
    tags: ['orders'],
    validate: { params: idParams('orderId') },
    response: { status: { 200: balanceInvoiceListResponse } },
    handler: adminHandler<{ orderId: string }>(({ ctx, storeId, params }) => listOrderBalances(ctx, storeId, params.orderId))
  }
});
