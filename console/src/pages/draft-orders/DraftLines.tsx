import { ActionIcon, Button, Group, NumberInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { fieldError } from '../../api/errors';
import { formatMoney } from '../../components/Money';
import type { FormLine } from './draft-form-state';
import { VariantSearch } from './VariantSearch';

/** The draft's lines: variants found by search (priced by the API when saved) and custom lines with a title and price. */
export function DraftLines({ lines, onChange, currency, error }: { lines: FormLine[]; onChange: (lines: FormLine[]) => void; currency: string; error: unknown }) {
  const [customTitle, setCustomTitle] = useState('');
  const [customPrice, setCustomPrice] = useState<number | string>('');
  const update = (index: number, change: Partial<FormLine>) => onChange(lines.map((line, i) => (i === index ? ({ ...line, ...change } as FormLine) : line)));
  return (
    <Stack gap="xs" component="section" aria-labelledby="draft-lines-title">
      <Title order={2} size="h4" id="draft-lines-title">
        Lines
      </Title>
      {lines.length === 0 && <Text size="sm">No lines yet: add a product or a custom line.</Text>}
      {lines.map((line, index) => (
        <Group key={line.key} align="flex-end" wrap="wrap" data-testid="draft-line">
          <Text size="sm" w={220}>
            {line.title}
            {line.variantId ? ` · ${formatMoney(line.price as number, currency)} each` : ' (custom)'}
          </Text>
          {!line.variantId && (
            <NumberInput
              label={`Price of ${line.title}`}
              min={0}
              decimalScale={2}
              value={line.price}
              onChange={(value) => update(index, { price: value })}
              w={140}
              error={fieldError(error, `lines.${index}.price`)}
            />
          )}
          <NumberInput
            label={`Quantity of ${line.title}`}
            min={1}
            allowDecimal={false}
            value={line.quantity}
            onChange={(value) => update(index, { quantity: Number(value) || 1 })}
            w={140}
            error={fieldError(error, `lines.${index}.quantity`)}
          />
          <ActionIcon variant="default" size="lg" mb={2} aria-label={`Remove ${line.title}`} onClick={() => onChange(lines.filter((_, i) => i !== index))}>
            ×
          </ActionIcon>
        </Group>
      ))}
      <VariantSearch
        currency={currency}
        onPick={(variant) => {
          const existing = lines.findIndex((line) => line.variantId === variant.variantId);
          if (existing >= 0) update(existing, { quantity: lines[existing]!.quantity + 1 });
          else onChange([...lines, { key: crypto.randomUUID(), variantId: variant.variantId, title: variant.title, quantity: 1, price: variant.price }]);
        }}
      />
      <Group align="flex-end" wrap="wrap">
        <TextInput label="Custom line title" value={customTitle} onChange={(e) => setCustomTitle(e.currentTarget.value)} />
        <NumberInput label="Custom line price" min={0} decimalScale={2} value={customPrice} onChange={setCustomPrice} w={160} />
        <Button
          variant="default"
          disabled={!customTitle.trim() || customPrice === ''}
          onClick={() => {
            onChange([...lines, { key: crypto.randomUUID(), variantId: null, title: customTitle.trim(), quantity: 1, price: customPrice, sku: null }]);
            setCustomTitle('');
            setCustomPrice('');
          }}
        >
          Add custom line
        </Button>
      </Group>
    </Stack>
  );
}
