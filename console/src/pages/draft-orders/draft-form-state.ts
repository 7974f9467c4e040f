import type { components } from '../../api/schema';

export type DraftOrder = components['schemas']['DraftOrder'];

/** A line as the form holds it: a variant (priced by the API) or a custom title and price (major units while typed). */
export type FormLine = { key: string; variantId: string; title: string; quantity: number; price: number } | { key: string; variantId: null; title: string; quantity: number; price: number | string; sku: string | null };

export interface AddressForm {
  firstName: string;
  lastName: string;
  line1: string;
  city: string;
  postalCode: string;
  country: string;
}

export interface DraftFormState {
  customerMode: 'email' | 'customer';
  email: string;
  customerId: string | null;
  customerLabel: string;
  lines: FormLine[];
  address: AddressForm;
  shippingMode: 'none' | 'rate' | 'custom';
  shippingRateId: string;
  customShippingTitle: string;
  customShippingPrice: number | string;
  discountMode: 'none' | 'code' | 'manual';
  discountCode: string;
  manualType: 'percentage' | 'fixed_amount';
  manualValue: number | string;
  note: string;
}

const toMinor = (value: number | string) => Math.round(Number(value || 0) * 100);
const toMajor = (minor: number) => minor / 100;
const emptyAddress: AddressForm = { firstName: '', lastName: '', line1: '', city: '', postalCode: '', country: '' };

export function emptyForm(): DraftFormState {
  return {
    customerMode: 'email',
    email: '',
    customerId: null,
    customerLabel: '',
    lines: [],
    address: emptyAddress,
    shippingMode: 'none',
    shippingRateId: '',
    customShippingTitle: '',
    customShippingPrice: '',
    discountMode: 'none',
    discountCode: '',
    manualType: 'percentage',
    manualValue: '',
    note: ''
  };
}

/** The form of a saved draft: its lines, shipping and discount as they were chosen. */
export function formOf(draft: DraftOrder): DraftFormState {
  const address = draft.shippingAddress;
  return {
    customerMode: draft.customerId ? 'customer' : 'email',
    email: draft.email ?? '',
    customerId: draft.customerId,
    customerLabel: draft.email ?? '',
    lines: draft.lines.map((line, index) =>
      line.variantId
        ? { key: `saved-${index}`, variantId: line.variantId, title: line.title, quantity: line.quantity, price: line.unitPrice }
        : { key: `saved-${index}`, variantId: null, title: line.title, quantity: line.quantity, price: toMajor(line.unitPrice), sku: line.sku }
    ),
    address: address
      ? { firstName: address.firstName, lastName: address.lastName, line1: address.line1, city: address.city, postalCode: address.postalCode, country: address.country }
      : emptyAddress,
    shippingMode: draft.shipping ? (draft.shipping.rateId ? 'rate' : 'custom') : 'none',
    shippingRateId: draft.shipping?.rateId ?? '',
    customShippingTitle: draft.shipping && !draft.shipping.rateId ? draft.shipping.title : '',
    customShippingPrice: draft.shipping && !draft.shipping.rateId ? toMajor(draft.shipping.price) : '',
    discountMode: draft.discountCode ? 'code' : draft.manualDiscount ? 'manual' : 'none',
    discountCode: draft.discountCode ?? '',
    manualType: draft.manualDiscount?.type ?? 'percentage',
    manualValue: draft.manualDiscount ? (draft.manualDiscount.type === 'percentage' ? draft.manualDiscount.value : toMajor(draft.manualDiscount.value)) : '',
    note: draft.note ?? ''
  };
}

/**
 * The request body: every field given, so a PATCH replaces what the form shows (lines replace all
 * lines; "no shipping" and "no discount" clear them). Money goes out in minor units.
 */
export function bodyOf(form: DraftFormState, update = false) {
  const hasAddress = Object.values(form.address).some((value) => value.trim());
  return {
    // A create takes an email or a customer; an update to an email lets go of the customer it had.
    ...(form.customerMode === 'customer' && form.customerId ? { customerId: form.customerId } : { email: form.email.trim() || null, ...(update ? { customerId: null } : {}) }),
    lines: form.lines.map((line) =>
      line.variantId !== null ? { variantId: line.variantId, quantity: line.quantity } : { title: line.title, price: toMinor(line.price), quantity: line.quantity, ...(line.sku ? { sku: line.sku } : {}) }
    ),
    shippingAddress: hasAddress ? { ...form.address, country: form.address.country.trim().toUpperCase() } : null,
    ...(form.shippingMode === 'rate'
      ? { shippingRateId: form.shippingRateId || null }
      : form.shippingMode === 'custom'
        ? { customShipping: { title: form.customShippingTitle, price: toMinor(form.customShippingPrice) } }
        : { shippingRateId: null }),
    ...(form.discountMode === 'code'
      ? { discountCode: form.discountCode.trim() || null }
      : form.discountMode === 'manual'
        ? { manualDiscount: { type: form.manualType, value: form.manualType === 'percentage' ? Number(form.manualValue || 0) : toMinor(form.manualValue) } }
        : { discountCode: null }),
    note: form.note
  };
}
