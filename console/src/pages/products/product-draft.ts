import type { components } from '../../api/schema';

type Product = components['schemas']['Product'];

export interface OptionDraft {
  name: string;
  values: string;
}

export interface VariantDraft {
  id?: string;
  title: string;
  sku: string;
  optionValues: Record<string, string>;
  price: string;
  inventoryQuantity: string;
}

export interface ProductDraft {
  title: string;
  description: string;
  status: 'draft' | 'active' | 'archived';
  options: OptionDraft[];
  variants: VariantDraft[];
}

export const emptyDraft = (): ProductDraft => ({
  title: '',
  description: '',
  status: 'draft',
  options: [],
  variants: [{ title: 'Default', sku: '', optionValues: {}, price: '', inventoryQuantity: '0' }]
});

export const valuesOf = (option: OptionDraft) =>
  option.values
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);

/** One variant per combination of the options' values, keeping what was typed for a known combination. */
export function variantsFromOptions(options: OptionDraft[], existing: VariantDraft[]): VariantDraft[] {
  const named = options.filter((option) => option.name.trim() && valuesOf(option).length);
  let combos: Array<Record<string, string>> = [{}];
  for (const option of named) combos = combos.flatMap((combo) => valuesOf(option).map((value) => ({ ...combo, [option.name.trim()]: value })));
  return combos.map((combo) => {
    const title = Object.values(combo).join(' / ') || 'Default';
    return existing.find((variant) => variant.title === title) ?? { title, sku: '', optionValues: combo, price: existing[0]?.price ?? '', inventoryQuantity: '0' };
  });
}

/** Major units typed by the operator ("19.99") to the API's minor units (1999). */
export const toMinor = (price: string) => Math.round(Number.parseFloat(price.replace(',', '.')) * 100);

export function draftOf(product: Product): ProductDraft {
  return {
    title: product.title,
    description: product.description,
    status: product.status,
    options: product.options.map((option) => ({ name: option.name, values: option.values.join(', ') })),
    variants: product.variants.map((variant) => ({
      id: variant.id,
      title: variant.title,
      sku: variant.sku ?? '',
      optionValues: (Array.isArray(variant.optionValues) ? {} : variant.optionValues) as Record<string, string>,
      price: (variant.price / 100).toFixed(2),
      inventoryQuantity: String(variant.inventoryQuantity)
    }))
  };
}

export function bodyOf(draft: ProductDraft) {
  return {
    title: draft.title,
    description: draft.description,
    status: draft.status,
    options: draft.options.filter((o) => o.name.trim()).map((o) => ({ name: o.name.trim(), values: valuesOf(o) })),
    variants: draft.variants.map((v) => ({
      ...(v.id ? { id: v.id } : {}),
      title: v.title,
      sku: v.sku || null,
      optionValues: v.optionValues,
      price: toMinor(v.price),
      inventoryQuantity: Number.parseInt(v.inventoryQuantity || '0', 10)
    }))
  };
}
