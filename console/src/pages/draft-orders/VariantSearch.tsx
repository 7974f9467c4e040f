import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { formatMoney } from '../../components/Money';

/** A variant as a line picker hands it on: what the line shows before the API prices it. */
export interface PickedVariant {
  variantId: string;
  title: string;
  price: number;
  inventoryQuantity: number;
}

/**
 * Finds variants by product title or SKU (the product list's `q`) and hands the chosen one on; the
 * price shown is today's, the API prices the line when it is saved.
 */
export function VariantSearch({ onPick, currency, label = 'Find a product' }: { onPick: (variant: PickedVariant) => void; currency: string; label?: string }) {
  const [q, setQ] = useState('');
  const [search] = useDebouncedValue(q.trim(), 250);
  // The matches close with the pick (the field is emptied) rather than when the debounce catches up a
  // quarter second later: a list folding away that late moved the form under a click already aimed
  // at the next control.
  const open = q.trim().length > 0;
  const found = useQuery({
    queryKey: ['variant-search', search],
    enabled: search.length > 0,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/products', { params: { query: { q: search, limit: 5 } } })).data.products
  });
  const variants = (found.data ?? []).flatMap((product) =>
    product.variants.map((variant) => ({
      variantId: variant.id,
      title: product.variants.length > 1 ? `${product.title} — ${variant.title}` : product.title,
      price: variant.price,
      inventoryQuantity: variant.inventoryQuantity,
      sku: variant.sku
    }))
  );
  return (
    <Stack gap={4}>
      <TextInput label={label} description="Product title or SKU" value={q} onChange={(e) => setQ(e.currentTarget.value)} />
      {found.isError && (
        <Text size="sm" c="red.8" role="alert">
          Could not search products: {found.error instanceof Error ? found.error.message : ''}
        </Text>
      )}
      {open && search && found.isSuccess && variants.length === 0 && <Text size="sm">No product matches “{search}”.</Text>}
      {open && variants.length > 0 && (
        <Stack gap={2} aria-label="Matching products" role="list">
          {variants.map((variant) => (
            <Group key={variant.variantId} justify="space-between" wrap="nowrap" role="listitem">
              <Text size="sm">
                {variant.title}
                {variant.sku ? ` (SKU ${variant.sku})` : ''} · {formatMoney(variant.price, currency)} · {variant.inventoryQuantity} in stock
              </Text>
              <Button
                size="xs"
                variant="default"
                aria-label={`Add ${variant.title}`}
                onClick={() => {
                  onPick(variant);
                  setQ('');
                }}
              >
                Add
              </Button>
            </Group>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
