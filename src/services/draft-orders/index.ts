/**
 * The face of module draft-orders: draft orders, their stock holds and their invoices' links and payments.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export {
  DRAFT_STATUSES,
  createDraftOrder,
  deleteDraftOrder,
  describeInvoice,
  draftOfToken,
  draftPayments,
  draftUnits,
  findDraftPayment,
  getDraftOrder,
  holdDraftStock,
  invoiceUrl,
  listDraftOrders,
  lockDraft,
  markDraftCompleted,
  markDraftInvoiced,
  newInvoiceToken,
  recordDraftPayment,
  setDraftPaymentStatus,
  toDraftDto,
  updateDraftOrder,
  type DraftDto,
  type DraftInput,
  type DraftLine,
  type DraftPaymentRow,
  type DraftRow,
  type DraftStatus,
  type ManualDiscount
} from './drafts.js';
export { draftOrdersModule } from './module.js';
export {
  balanceInvoicesOf,
  balanceOfToken,
  lockBalanceInvoice,
  markBalancePaid,
  noteBalanceRefund,
  openBalanceInvoice,
  openBalanceOf,
  orderOfBalancePayment,
  paidBalancesOf,
  takeBackUncollected,
  uncollectedOf,
  voidBalanceInvoice,
  voidBalanceInvoices,
  type BalanceInvoiceRow
} from './balance-invoices.js';
