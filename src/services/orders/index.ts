/**
 * The face of module orders: orders, fulfilments, payments on orders, refunds, disputes, returns, cancels, the timeline.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { findOrder, markOrderCancelled, orderFulfilled, orderItemsOf, type CancelInput } from './cancel.js';
export { draftOrderForEmail, insertedOrder, newTrackingToken, orderDtoBeforeInsert, orderInsert, orderTaxTransaction, setOrderTaxTransaction, type NewOrder } from './create-order.js';
export { lockOrderForBalance, recordBalanceCollectedByHand } from './balance-by-hand.js';
export { DISPUTE_STATUSES, isDisputeClosed, listDisputes, recordDispute, type DisputeFact, type DisputeStatus } from './disputes.js';
export { toOrderDto, type OrderRow, type RefundPart, type RefundRow } from './dto.js';
export { createFulfillment, type FulfillmentInput } from './fulfillments.js';
export { cancelOverdueOrderRow, markOrderPaid, overdueManualOrders, unitsOf } from './manual-payments.js';
export { ordersModule } from './module.js';
export { orderCancelledEmail, orderConfirmationEmail, orderRefundedEmail } from './notifications.js';
export { addOrderNote, deleteOrderNote, updateOrderNote, type NoteInput } from './order-notes.js';
export { ensureOrderNumberSequence } from './order-numbers.js';
export { FULFILLMENT_STATUSES, ORDER_STATUSES, ORDER_STATUS_FILTERS, PAYMENT_STATUSES, getOrder, listOrders, loadOrder, type OrderListFilters } from './orders.js';
export { moveOrderPayment } from './payment-moves.js';
export { trackOrder } from './public-tracking.js';
export { REFUNDABLE_STATES, type RefundInput } from './refund-amounts.js';
export {
  failPendingRefund,
  findRefund,
  lockPendingRefund,
  previewRefund,
  refundableNow,
  refundAnswer,
  refundRestockVariantIds,
  requestedRestockVariantIds,
  reserveRefund,
  settleRefund
} from './refunds.js';
export { RETURN_STATUSES, cancelReturn, closeReturn, closeReturnRow, findReturn, getReturn, markReturnReceived, requestReturn, returnVariantIds, toReturnDto, type ReturnLine } from './returns.js';
export { noteRefundPart, noteRefundPartRefused, refundPartKey, stripeParts } from './refund-payments.js';
export { findReportedRefund, recordStripeRefund, type ReportedRefund } from './stripe-refunds.js';
export { ACTOR_TYPES, ORDER_EVENT_TYPES, SYSTEM, WEBHOOK, listTimeline, recordOrderEvent, recordOrderEvents, userActor, type Actor } from './timeline.js';
export { orderMailStore, trackingUrlFor } from './tracking-url.js';
export { restockOrderLines } from './restock.js';
export { ORDER_DEFAULT_SORT, ORDER_SORTS } from './orders.js';
export { changeAnswer, commitOrderChange, type EditInput, type ExchangeInput } from './edits.js';
