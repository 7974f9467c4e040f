import type { ShippingMethod } from '../stores/index.js';
import { shippingPrice } from './totals.js';

/**
 * Which of the store's `shippingMethods` a cart may use. A method without `countries` ships
 * everywhere. The country is the cart's (set by choosing a method with `country`, or by the
 * checkout session's shipping address); while it is unknown every method is offered, and the
 * checkout session refuses a method that does not ship to the address.
 */
export function shipsTo(method: ShippingMethod, country: string | null): boolean {
  if (!method.countries || method.countries.length === 0 || !country) return true;
  return method.countries.map((c) => c.toUpperCase()).includes(country.toUpperCase());
}

export function eligibleMethods(methods: ShippingMethod[], country: string | null, subtotal: number) {
  return methods
    .filter((method) => shipsTo(method, country))
    .map((method) => ({ id: method.id, name: method.name, price: shippingPrice({ price: method.price, freeOverAmount: method.freeOverAmount ?? null }, subtotal) }));
}
