/**
 * Carts and their checkout sessions: one lock order (cart, session, variants, discount), one owner
 * of carts, cart_items and checkout_sessions. Stock holds are the catalog's, discount uses the
 * discounts module's; the confirm that makes an order is a use case (src/use-cases/confirm-
 * checkout.ts).
 */
import type { Module } from '../../context.js';

export const checkoutModule: Module = { name: 'checkout' };
