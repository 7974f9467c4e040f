import { describePublicInvoice, startPublicInvoicePayment } from '../../use-cases/collect-order-balance.js';
import { publicHandler } from '../handler.js';
import { publicRoute } from '../route-helpers.js';
import { invoiceParams, invoicePaymentResponse, invoiceResponse } from './schemas.js';

export const getInvoiceRoute = publicRoute({
  method: 'GET',
  path: '/public/invoices/{token}',
  options: {
    description: "A draft order's invoice, or the balance an order edit left to pay (kind: order_balance), from the link its email carries: the lines, the totals, whether it is paid; an unknown, tampered or deleted link is 404, a voided balance link 410 invoice_void",
    plugins: { openapi: { errors: [410] } },
    tags: ['draft-orders'],
    validate: { params: invoiceParams },
    response: { status: { 200: invoiceResponse } },
    handler: publicHandler<{ token: string }>(({ ctx, params }) => describePublicInvoice(ctx, params.token))
  }
});

export const payInvoiceRoute = publicRoute({
  method: 'POST',
  path: '/public/invoices/{token}/pay',
  options: {
    plugins: { openapi: { errors: [409, 410, 502] } },
    description:
      "Start paying an invoice: a Stripe PaymentIntent for exactly the draft's total (or the order balance) on the store's account (its client secret confirms it in the browser). Its success (the signed Stripe event) makes the order (or marks the balance paid) once; a second payment that also succeeds is refunded in full. 409 once the invoice is paid, 410 invoice_void once the store voided it",
    tags: ['draft-orders'],
    validate: { params: invoiceParams },
    response: { status: { 200: invoicePaymentResponse } },
    handler: publicHandler<{ token: string }>(({ ctx, params }) => startPublicInvoicePayment(ctx, params.token))
  }
});
