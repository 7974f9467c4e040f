import { Table, TextInput } from '@mantine/core';
import { fieldError } from '../../api/errors';
import type { VariantDraft } from './product-draft';

/** Each variant's SKU, price (in major units) and stock; errors from the API sit by their field. */
export function VariantsEditor({ variants, onChange, error }: { variants: VariantDraft[]; onChange: (variants: VariantDraft[]) => void; error: unknown }) {
  const set = (index: number, patch: Partial<VariantDraft>) => onChange(variants.map((variant, i) => (i === index ? { ...variant, ...patch } : variant)));
  return (
    <Table aria-label="Variants">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Variant</Table.Th>
          <Table.Th>SKU</Table.Th>
          <Table.Th>Price</Table.Th>
          <Table.Th>Stock</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {variants.map((variant, index) => (
          <Table.Tr key={variant.id ?? variant.title}>
            <Table.Td>{variant.title}</Table.Td>
            <Table.Td>
              <TextInput aria-label={`SKU of ${variant.title}`} value={variant.sku} onChange={(e) => set(index, { sku: e.currentTarget.value })} error={fieldError(error, `variants.${index}.sku`)} />
            </Table.Td>
            <Table.Td>
              <TextInput
                aria-label={`Price of ${variant.title}`}
                inputMode="decimal"
                required
                value={variant.price}
                onChange={(e) => set(index, { price: e.currentTarget.value })}
                error={fieldError(error, `variants.${index}.price`)}
              />
            </Table.Td>
            <Table.Td>
              <TextInput
                aria-label={`Stock of ${variant.title}`}
                inputMode="numeric"
                value={variant.inventoryQuantity}
                onChange={(e) => set(index, { inventoryQuantity: e.currentTarget.value })}
                error={fieldError(error, `variants.${index}.inventoryQuantity`)}
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
