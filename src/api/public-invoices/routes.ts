import { describeInvoice } from '../../services/draft-orders/index.js';
import { startInvoicePayment } from '../../use-cases/complete-draft-order.js';
import { publicHandler } from '../handler.js';
import { publicRoute } from '../route-helpers.js';
import { invoiceParams, invoicePaymentResponse, invoiceResponse } from './schemas.js';

export const getInvoiceRoute = publicRoute({
  method: 'GET',
  path: '/public/invoices/{token}',
  options: {
    description: "A draft order's invoice, from the link its email carries: the lines, the totals, whether it is paid; an unknown, tampered or deleted link is 404",
    tags: ['draft-orders'],
    validate: { params: invoiceParams },
    response: { status: { 200: invoiceResponse } },
    handler: publicHandler<{ token: string }>(({ ctx, params }) => describeInvoice(ctx, params.token))
  }
});

export const payInvoiceRoute = publicRoute({
  method: 'POST',
  path: '/public/invoices/{token}/pay',
  options: {
    plugins: { openapi: { errors: [409, 502] } },
    description:
      "Start paying an invoice: a Stripe PaymentIntent for exactly the draft's total on the store's account (its client secret confirms it in the browser). Its success (the signed Stripe event) makes the order once; a second payment that also succeeds is refunded in full. 409 once the invoice is paid",
    tags: ['draft-orders'],
    validate: { params: invoiceParams },
    response: { status: { 200: invoicePaymentResponse } },
    handler: publicHandler<{ token: string }>(({ ctx, params }) => startInvoicePayment(ctx, params.token))
  }
});
