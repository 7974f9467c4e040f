export const RATE_TYPES = ['flat', 'weight', 'subtotal', 'pickup'] as const;
export type RateType = (typeof RATE_TYPES)[number];

export const ZONE_SOURCES = ['zones', 'store_setting'] as const;
export type ZoneSource = (typeof ZONE_SOURCES)[number];

/** A price band: up to and including `upTo` (grams for weight rates, minor units for subtotal rates); null: no upper limit. */
export interface RateBand {
  upTo: number | null;
  price: number;
}

/** How long delivery takes: days, a text, or both. */
export interface ShippingEstimate {
  minDays?: number;
  maxDays?: number;
  text?: string;
}

export interface ShippingRate {
  id: string;
  name: string;
  type: RateType;
  /** Flat and pickup rates; null on band rates. */
  price: number | null;
  bands: RateBand[] | null;
  /** At or over this merchandise subtotal (minor units) the rate costs 0. */
  freeOver: number | null;
  estimate: ShippingEstimate | null;
}

export interface ShippingZone {
  id: string;
  name: string;
  /** ISO 3166-1 alpha-2, upper case; empty: every country. */
  countries: string[];
  /** ISO 3166-2 codes as given (`US-CA` or `CA`), upper case; empty: the whole of each country. */
  regions: string[];
  /** Postcode patterns (rules.ts, postcodeMatches); empty: every postcode. */
  postcodes: string[];
  position: number;
  /** `store_setting`: written by the old `shippingMethods` store setting, which replaces exactly these. */
  source: ZoneSource;
  rates: ShippingRate[];
  createdAt: Date;
  updatedAt: Date;
}

/** The old store setting's entry (`PATCH /admin/store { shippingMethods }`): one zone with one flat rate. */
export interface LegacyShippingMethod {
  id: string;
  name: string;
  price: number;
  freeOverAmount: number | null;
  countries: string[] | null;
}

export interface RateInput {
  id?: string;
  name: string;
  type: RateType;
  price?: number | null;
  bands?: RateBand[] | null;
  freeOver?: number | null;
  estimate?: ShippingEstimate | null;
}

export interface ZoneInput {
  name?: string;
  countries?: string[];
  regions?: string[] | null;
  postcodes?: string[] | null;
  rates?: RateInput[];
}
