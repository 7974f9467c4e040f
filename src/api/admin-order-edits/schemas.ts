import Joi from 'joi';
import { orderResource } from '../admin-orders/schemas.js';
import { id, idValue, money, responseObject, text } from '../schemas.js';

const quantity = () => Joi.number().integer().min(1).max(10_000);
const collect = Joi.string()
  .valid('mark_paid', 'invoice')
  .description('a paid order whose total grows: mark_paid (the difference was collected by hand) or invoice (the customer is emailed a payment link for it)');
const version = Joi.number().integer().min(1).description("the order's version the change was made from: 409 when the order changed since");

export const editQuery = Joi.object({ dryRun: Joi.boolean().default(false) });

export const editPayload = Joi.object({
  add: Joi.array()
    .items(
      Joi.alternatives(
        Joi.object({ variantId: id().required(), quantity: quantity().required() }),
        Joi.object({ title: text(255).min(1).required(), price: money().required(), quantity: quantity().required() })
      )
    )
    .max(100),
  change: Joi.array()
    .items(Joi.object({ orderItemId: id().required(), quantity: quantity().required() }))
    .max(100),
  remove: Joi.array().items(id()).max(100).unique(),
  shippingRateId: text(100).min(1),
  customShipping: Joi.object({ title: text(100).min(1).required(), price: money().required() }),
  collect,
  version,
  notifyCustomer: Joi.boolean(),
  reason: text(500)
})
  .oxor('shippingRateId', 'customShipping')
  .or('add', 'change', 'remove', 'shippingRateId', 'customShipping');

export const exchangePayload = Joi.object({
  returnItems: Joi.array()
    .items(Joi.object({ orderItemId: id().required(), quantity: quantity().required(), restock: Joi.boolean().required() }))
    .min(1)
    .max(100)
    .required(),
  newItems: Joi.array()
    .items(Joi.object({ variantId: id().required(), quantity: quantity().required() }))
    .max(100)
    .required(),
  collect,
  version,
  notifyCustomer: Joi.boolean(),
  reason: text(500)
});

const totals = responseObject({
  subtotal: Joi.number().integer().required(),
  discountTotal: Joi.number().integer().required(),
  shippingTotal: Joi.number().integer().required(),
  taxTotal: Joi.number().integer().description("the order's tax after the change, computed as a checkout's at the order's shipping address"),
  pricesIncludeTax: Joi.boolean(),
  total: Joi.number().integer().required()
}).label('OrderTotals');

export const editPreviewResponse = responseObject({
  edit: responseObject({
    difference: Joi.number().integer().required().description('new total less the current one: > 0 to collect, < 0 to refund'),
    totals: totals.required(),
    before: totals.required(),
    version: Joi.number().integer().required()
  }).required()
});

export const editCommittedResponse = responseObject({
  edit: responseObject({
    difference: Joi.number().integer().required(),
    totals: totals.required(),
    version: Joi.number().integer().required(),
    refund: responseObject({
      id: idValue().required(),
      status: Joi.string().valid('pending', 'succeeded', 'failed').required(),
      amount: Joi.number().integer().required(),
      taxAmount: Joi.number().integer().required().description('the tax the refund gives back (part of amount)')
    })
      .allow(null)
      .required(),
    invoice: responseObject({
      id: idValue().required(),
      url: Joi.string().uri().required().description('the payment link emailed to the customer'),
      amount: Joi.number().integer().required(),
      status: Joi.string().valid('open', 'paid', 'void').required()
    })
      .allow(null)
      .required()
      .description('collect: invoice: the payment link of the difference')
  }).required(),
  order: orderResource.required()
});

export const balanceInvoiceResource = responseObject({
  id: Joi.string().uuid().required(),
  orderId: Joi.string().uuid().required(),
  status: Joi.string().valid('open', 'paid', 'void').required(),
  amount: Joi.number().integer().required(),
  currency: Joi.string().required(),
  paymentIntentId: Joi.string().allow(null).required().description('the PaymentIntent of its link that paid it; null while unpaid and when it was marked paid by hand'),
  takenBack: Joi.number().integer().min(0).required().description('what later edits lowering the total took back of it while it was unpaid: amount less this is what it still asks'),
  paidAt: Joi.string().isoDate().allow(null).required(),
  createdAt: Joi.string().isoDate().required()
}).label('OrderBalanceInvoice');

export const balanceInvoiceResponse = responseObject({ invoice: balanceInvoiceResource.required(), order: orderResource.required() });
export const balanceInvoiceListResponse = responseObject({ invoices: Joi.array().items(balanceInvoiceResource).required() });

/** A balance collected by hand: how, for the timeline (both optional; an empty body is allowed). */
export const balanceMarkPaidPayload = Joi.object({
  reference: text(255).allow(''),
  note: text(2000).allow('')
}).allow(null);
