import { applicableRates, checkRate, isApplied, type AppliedRate, type CartContents, type Destination, type RateRefusal, type ShippingZone } from '../shipping/index.js';

/**
 * Where a cart's shipping price comes from: the store's shipping zones (the shipping module's rules,
 * docs/shipping.md) applied to the cart's destination (country, region, postcode: as far as the
 * shopper has said) and its contents (the weight of the lines that ship, the subtotal).
 */

/** What of a cart's lines decides its shipping: the weight of those that ship, whether any does, the subtotal. */
export function cartContents(lines: Array<{ quantity: number; weightGrams: number | null; requiresShipping: boolean }>, subtotal: number): CartContents {
  let weightGrams = 0;
  let shipping = 0;
  for (const line of lines) {
    if (!line.requiresShipping) continue;
    shipping += 1;
    weightGrams += (line.weightGrams ?? 0) * line.quantity;
  }
  // An empty cart still "needs shipping": the shopper may choose a method before adding items.
  return { shippingRequired: lines.length === 0 || shipping > 0, weightGrams, subtotal };
}

export const destinationOf = (cart: { shippingCountry: string | null; shippingRegion: string | null; shippingPostcode: string | null }): Destination => ({
  country: cart.shippingCountry?.trim() || null,
  region: cart.shippingRegion,
  postalCode: cart.shippingPostcode
});

/** The cart's chosen rate, applied, or why it does not apply (an unknown id: no longer offered). */
export function chosenRate(zones: ShippingZone[], rateId: string | null, destination: Destination, contents: CartContents): { applied: AppliedRate | null; refusal: RateRefusal | null } {
  if (!rateId) return { applied: null, refusal: null };
  const result = checkRate(zones, rateId, destination, contents);
  return isApplied(result) ? { applied: result, refusal: null } : { applied: null, refusal: result };
}

/** The rates a shopper may choose for this destination and these contents, priced. */
export function eligibleMethods(zones: ShippingZone[], destination: Destination, contents: CartContents) {
  return applicableRates(zones, destination, contents).map(({ rate, zone, price }) => ({
    id: rate.id,
    name: rate.name,
    type: rate.type,
    price,
    estimate: rate.estimate,
    zoneId: zone.id
  }));
}
