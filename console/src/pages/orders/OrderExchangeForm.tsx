import { ActionIcon, Button, Card, Checkbox, Group, NumberInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { fieldError } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { VariantSearch, type PickedVariant } from '../draft-orders/VariantSearch';
import { BalanceInvoiceLink, ChangePreviewBox } from './ChangePreviewBox';
import { useOrderChange, type Collect, type Order } from './order-change';

/**
 * An exchange (a wrong size swapped): units taken back, each line with its restock choice, and new
 * variant lines the next fulfilment ships. Preview first, then commit, settled like an edit.
 */
export function OrderExchangeForm({ order }: { order: Order }) {
  const [quantities, setQuantities] = useState<Record<string, number>>({});
  const [restock, setRestock] = useState<Record<string, boolean>>({});
  const [added, setAdded] = useState<Array<PickedVariant & { quantity: number }>>([]);
  const [reason, setReason] = useState('');
  const [collect, setCollect] = useState<Collect | null>(null);
  const reset = () => (setQuantities({}), setRestock({}), setAdded([]), setReason(''), setCollect(null));
  const { preview, commit, invoice, error } = useOrderChange(order, 'exchanges', reset);
  const returnable = order.items.filter((item) => item.quantity - item.returnedQuantity - item.refundedQuantity > 0);
  const body = () => ({
    returnItems: returnable.filter((item) => (quantities[item.id] ?? 0) > 0).map((item) => ({ orderItemId: item.id, quantity: quantities[item.id]!, restock: restock[item.id] ?? true })),
    newItems: added.map((line) => ({ variantId: line.variantId, quantity: line.quantity })),
    ...(reason.trim() ? { reason: reason.trim() } : {}),
    ...(collect ? { collect } : {})
  });
  const changed = () => (preview.reset(), commit.reset(), setCollect(null));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    preview.mutate(body());
  };
  const taking = returnable.some((item) => (quantities[item.id] ?? 0) > 0);
  return (
    <Card withBorder component="section" aria-labelledby="exchange-title">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="exchange-title">
            Exchange
          </Title>
          {returnable.map((item) => (
            <Group key={item.id} align="flex-end" wrap="wrap">
              <NumberInput
                label={`Take back of ${item.title}`}
                description={`${item.quantity - item.returnedQuantity - item.refundedQuantity} can be taken back`}
                min={0}
                max={item.quantity - item.returnedQuantity - item.refundedQuantity}
                allowDecimal={false}
                value={quantities[item.id] ?? 0}
                onChange={(value) => (setQuantities((q) => ({ ...q, [item.id]: Number(value) || 0 })), changed())}
                w={220}
              />
              <Checkbox
                label={`Restock ${item.title}`}
                mb={8}
                checked={restock[item.id] ?? true}
                onChange={(e) => {
                  const checked = e.currentTarget.checked;
                  setRestock((r) => ({ ...r, [item.id]: checked }));
                  changed();
                }}
              />
            </Group>
          ))}
          {added.map((line, index) => (
            <Group key={line.variantId} align="flex-end" wrap="wrap" data-testid="exchange-new-line">
              <NumberInput
                label={`Quantity of ${line.title} to send`}
                min={1}
                allowDecimal={false}
                value={line.quantity}
                onChange={(value) => (setAdded((lines) => lines.map((l, i) => (i === index ? { ...l, quantity: Number(value) || 1 } : l))), changed())}
                w={220}
              />
              <ActionIcon variant="default" size="lg" mb={2} aria-label={`Do not send ${line.title}`} onClick={() => (setAdded((lines) => lines.filter((_, i) => i !== index)), changed())}>
                ×
              </ActionIcon>
            </Group>
          ))}
          <VariantSearch
            label="Send instead"
            currency={order.currency}
            onPick={(variant) => (setAdded((lines) => (lines.some((l) => l.variantId === variant.variantId) ? lines : [...lines, { ...variant, quantity: 1 }])), changed())}
          />
          <TextInput label="Reason for the exchange" value={reason} onChange={(e) => setReason(e.currentTarget.value)} error={fieldError(error, 'reason')} />
          {!taking && <Text size="sm">Choose what comes back to preview the exchange.</Text>}
          <Button type="submit" variant="default" w="fit-content" disabled={!taking} loading={preview.isPending}>
            Preview exchange
          </Button>
          {preview.data && (
            <ChangePreviewBox order={order} preview={preview.data} collect={collect} onCollect={setCollect} onCommit={() => commit.mutate(body())} pending={commit.isPending} commitLabel="Make the exchange" />
          )}
          {commit.isSuccess && (
            <Text size="sm" role="status" data-testid="exchange-saved">
              Exchange made.
            </Text>
          )}
          {commit.isSuccess && <BalanceInvoiceLink invoice={invoice} currency={order.currency} />}
          <FormError error={error} fields={['reason']} />
        </Stack>
      </form>
    </Card>
  );
}
