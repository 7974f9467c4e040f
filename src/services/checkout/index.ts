/**
 * The face of module checkout: carts and their checkout sessions (prices, shipping, holds taken through the catalog).
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { CART_STATUSES } from './cart-view.js';
export { MAX_LINE_QUANTITY, addCartItem, applyCartDiscount, cartNotOpen, createCart, deleteExpiredCarts, getCart, listShippingMethods, removeCartDiscount, removeCartItem, selectShippingMethod, setShippingDestination, updateCartItem, type CartItemInput, type DestinationInput } from './carts.js';
export { completeSession, lockSessionAndCart } from './completion.js';
export { checkoutModule } from './module.js';
export { cancelPendingSessions, reserveStock, stockChanged } from './reservations.js';
export { lockSessionPayment, setSessionPaymentStatus } from './session-payments.js';
export { SESSION_STATUSES, createCheckoutSession, releaseExpiredSessions, type CheckoutSessionInput, type OrderSnapshotLine, type SessionRow } from './sessions.js';
export { formatMoney } from './totals.js';
export { priceLines, type PriceRequest, type PriceTax, type PricedRequest, type TaxQuote } from './price-lines.js';
export { isTaxExempt } from './cart-taxes.js';
