/**
 * Which rates apply to a destination and a cart's contents, and what they cost: pure functions over
 * a store's zones (docs/shipping.md). Money in integer minor units, weights in integer grams: the
 * price of a rate is one of its own integers (its price, or a band's), or 0 over `freeOver`;
 * nothing here multiplies or divides, so nothing rounds.
 */
import type { ShippingRate, ShippingZone } from './types.js';

/** Where a cart ships to, as far as the shopper has said (each part null while unknown). */
export interface Destination {
  country: string | null;
  region: string | null;
  postalCode: string | null;
}

/** What of the cart decides a rate: its weight and subtotal, and whether anything in it ships. */
export interface CartContents {
  /** False when the cart has lines and none needs shipping (digital goods, services). */
  shippingRequired: boolean;
  /** Total grams of the lines that need shipping (a variant of unknown weight counts 0). */
  weightGrams: number;
  /** The merchandise subtotal, before discounts (what `freeOver` and subtotal bands compare). */
  subtotal: number;
}

export interface AppliedRate {
  rate: ShippingRate;
  zone: ShippingZone;
  price: number;
}

/** Why a rate does not apply, and which part of the destination (if any) is the reason. */
export interface RateRefusal {
  reason: string;
  field: 'country' | 'region' | 'postalCode' | null;
}

const clean = (value: string | null | undefined) => {
  const trimmed = value?.trim().toUpperCase();
  return trimmed ? trimmed : null;
};

/** `CA` with country `US` is `US-CA`; `US-CA` stays. */
export function fullRegion(region: string, country: string | null): string {
  const code = region.trim().toUpperCase();
  return code.includes('-') || !country ? code : `${country.toUpperCase()}-${code}`;
}

/** Spaces dropped, upper case: `sw1a 1aa` and `SW1A1AA` are one postcode. */
export const normalisePostcode = (postcode: string) => postcode.replace(/\s+/g, '').toUpperCase();

/**
 * A postcode pattern: `90210` (exact), `9*` or `SW1*` (`*` stands for any characters, anywhere), or
 * `90000..96199` (an inclusive range of digits: the postcode's first characters, as many as the
 * bounds have, read as a number; `90210-1234` is in `90000..96199`). Spaces are ignored and case
 * does not matter.
 */
export function postcodeMatches(pattern: string, postcode: string): boolean {
  const code = normalisePostcode(postcode);
  const p = normalisePostcode(pattern);
  const range = /^(\d+)\.\.(\d+)$/.exec(p);
  if (range) {
    const [, low, high] = range as unknown as [string, string, string];
    const head = code.slice(0, low.length);
    if (!/^\d+$/.test(head) || head.length < low.length) return false;
    return Number(head) >= Number(low) && Number(head) <= Number(high);
  }
  if (p.includes('*')) {
    const regex = new RegExp(`^${p.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    return regex.test(code);
  }
  return p === code;
}

/**
 * Why the zone does not cover the destination, or null when it does. Only what is known counts:
 * a destination without a postcode is not refused by postcode patterns (the checkout, which has the
 * whole address, checks again).
 */
export function zoneRefusal(zone: ShippingZone, destination: Destination): RateRefusal | null {
  const country = clean(destination.country);
  const region = clean(destination.region);
  const postalCode = destination.postalCode?.trim() || null;
  if (zone.countries.length && country && !zone.countries.includes(country)) return { reason: `does not ship to ${country}`, field: 'country' };
  if (zone.regions.length && region) {
    const wanted = fullRegion(region, country);
    if (!zone.regions.some((r) => fullRegion(r, country) === wanted)) return { reason: `does not ship to ${wanted}`, field: 'region' };
  }
  if (zone.postcodes.length && postalCode && !zone.postcodes.some((pattern) => postcodeMatches(pattern, postalCode))) {
    return { reason: `does not ship to postcode ${postalCode.toUpperCase()}`, field: 'postalCode' };
  }
  return null;
}

/** The rate's price for these contents, or why it has none (over its last band). */
export function ratePrice(rate: ShippingRate, contents: CartContents): number | RateRefusal {
  let price = rate.price ?? 0;
  if (rate.type === 'weight' || rate.type === 'subtotal') {
    const measure = rate.type === 'weight' ? contents.weightGrams : contents.subtotal;
    const band = (rate.bands ?? []).find((b) => b.upTo === null || measure <= b.upTo);
    if (!band) {
      const last = rate.bands?.[rate.bands.length - 1]?.upTo ?? 0;
      return {
        reason: rate.type === 'weight' ? `the cart weighs ${measure} g, over this method's ${last} g` : `the subtotal ${measure} is over this method's ${last}`,
        field: null
      };
    }
    price = band.price;
  }
  if (rate.freeOver !== null && contents.subtotal >= rate.freeOver) return 0;
  return price;
}

/** Whether a rate applies (its zone covers the destination, pickup anywhere) and its price, or why not. */
export function applyRate(zone: ShippingZone, rate: ShippingRate, destination: Destination, contents: CartContents): AppliedRate | RateRefusal {
  if (!contents.shippingRequired) return { reason: 'nothing in the cart needs shipping', field: null };
  if (rate.type !== 'pickup') {
    const refused = zoneRefusal(zone, destination);
    if (refused) return refused;
  }
  const price = ratePrice(rate, contents);
  return typeof price === 'number' ? { rate, zone, price } : price;
}

const isApplied = (result: AppliedRate | RateRefusal): result is AppliedRate => 'rate' in result;

/** Every rate that applies, priced, in zone order then rate order; none when nothing needs shipping. */
export function applicableRates(zones: ShippingZone[], destination: Destination, contents: CartContents): AppliedRate[] {
  const applied: AppliedRate[] = [];
  for (const zone of zones) for (const rate of zone.rates) {
    const result = applyRate(zone, rate, destination, contents);
    if (isApplied(result)) applied.push(result);
  }
  return applied;
}

/** The chosen rate checked again: applied, or refused with the reason (an unknown id: no longer offered). */
export function checkRate(zones: ShippingZone[], rateId: string, destination: Destination, contents: CartContents): AppliedRate | RateRefusal {
  for (const zone of zones) {
    const rate = zone.rates.find((r) => r.id === rateId);
    if (rate) return applyRate(zone, rate, destination, contents);
  }
  return { reason: 'this shipping method is no longer offered', field: null };
}

export { isApplied };

/** Whether the store offers any rate at all (a store that ships nothing asks for no choice). */
export const offersShipping = (zones: ShippingZone[]) => zones.some((zone) => zone.rates.length > 0);

/** The countries the store names in its zones, sorted (zones without countries ship everywhere and add none). */
export function namedCountries(zones: ShippingZone[]): string[] {
  const countries = new Set<string>();
  for (const zone of zones) if (zone.rates.length) for (const country of zone.countries) countries.add(country);
  return [...countries].sort();
}

/** A zone with no countries, regions or postcodes covers every destination. */
export const zoneCoversAnywhere = (zone: ShippingZone) => !zone.countries.length && !zone.regions.length && !zone.postcodes.length;
