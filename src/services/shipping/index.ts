/**
 * The face of module shipping: a store's shipping zones and their rates, which of them apply to a
 * cart's destination and contents, and what they cost (docs/shipping.md).
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { shippingModule } from './module.js';
export { RATE_TYPES, ZONE_SOURCES, type LegacyShippingMethod, type RateBand, type RateInput, type RateType, type ShippingEstimate, type ShippingRate, type ShippingZone, type ZoneInput } from './types.js';
export { MAX_RATES, MAX_ZONES, cachedZones, createZone, deleteZone, forgetZones, getZone, listZones, replaceSettingZones, settingShippingMethods, updateZone } from './zones.js';
export {
  applicableRates,
  checkRate,
  fullRegion,
  isApplied,
  namedCountries,
  offersShipping,
  postcodeMatches,
  zoneCoversAnywhere,
  type AppliedRate,
  type CartContents,
  type Destination,
  type RateRefusal
} from './rules.js';
