import type { components } from '../../api/schema';
import { toMinor } from '../products/product-draft';

type Rate = components['schemas']['ShippingRate'];
export type RateType = Rate['type'];

export interface BandDraft {
  upTo: string;
  price: string;
}

/** A rate as the form holds it: money in major units, weights in grams, as typed. */
export interface RateDraft {
  id?: string;
  name: string;
  type: RateType;
  price: string;
  bands: BandDraft[];
  freeOver: string;
  estimate: string;
}

const major = (minor: number | null | undefined) => (minor == null ? '' : (minor / 100).toFixed(2));

export const RATE_TYPES: Array<{ value: RateType; label: string }> = [
  { value: 'flat', label: 'Flat price' },
  { value: 'weight', label: 'By weight' },
  { value: 'subtotal', label: 'By order subtotal' },
  { value: 'pickup', label: 'Pickup' }
];

export const emptyRate = (): RateDraft => ({ name: '', type: 'flat', price: '', bands: [{ upTo: '', price: '' }], freeOver: '', estimate: '' });

export function rateDraftOf(rate: Rate): RateDraft {
  return {
    id: rate.id,
    name: rate.name,
    type: rate.type,
    price: major(rate.price),
    bands: rate.bands?.length ? rate.bands.map((b) => ({ upTo: b.upTo == null ? '' : rate.type === 'subtotal' ? major(b.upTo) : String(b.upTo), price: major(b.price) })) : [{ upTo: '', price: '' }],
    freeOver: major(rate.freeOver),
    estimate: rate.estimate?.text ?? ''
  };
}

/**
 * A rate as the API wants it. Weight bands are grams, subtotal bands money (typed in major units);
 * an empty "up to" is no upper limit. The estimate is kept as the shopper reads it (its text).
 */
export function rateBody(draft: RateDraft) {
  const banded = draft.type === 'weight' || draft.type === 'subtotal';
  const upTo = (value: string) => (value.trim() === '' ? null : draft.type === 'subtotal' ? toMinor(value) : Number.parseInt(value, 10));
  return {
    ...(draft.id ? { id: draft.id } : {}),
    name: draft.name,
    type: draft.type,
    price: banded ? null : draft.price.trim() === '' ? (draft.type === 'pickup' ? 0 : Number.NaN) : toMinor(draft.price),
    bands: banded ? draft.bands.map((b) => ({ upTo: upTo(b.upTo), price: toMinor(b.price) })) : null,
    freeOver: draft.freeOver.trim() === '' ? null : toMinor(draft.freeOver),
    estimate: draft.estimate.trim() ? { text: draft.estimate.trim() } : null
  };
}

/** `US, ca` → ['US', 'CA'] (the API upper-cases too; empty entries dropped). */
export const listOf = (text: string) => text.split(',').map((c) => c.trim().toUpperCase()).filter(Boolean);
