/**
 * The face of module discounts: discount codes, the rules of applying one, their uses.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { discountProblem, findDiscountByCode, notApplicable, redeemDiscount, releaseDiscount, type DiscountRecord } from './discount-rules.js';
export { DISCOUNT_TYPES, createDiscount, deleteDiscount, getDiscount, listDiscounts, releaseDiscountUse, replaceDiscount, type DiscountInput } from './discounts.js';
export { discountsModule } from './module.js';
