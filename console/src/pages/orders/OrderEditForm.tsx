import { ActionIcon, Button, Card, Checkbox, Group, NativeSelect, NumberInput, Radio, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { fieldError } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { useShippingRates } from '../draft-orders/shipping-rates';
import { VariantSearch, type PickedVariant } from '../draft-orders/VariantSearch';
import { BalanceInvoiceLink, ChangePreviewBox } from './ChangePreviewBox';
import { changeable, useOrderChange, type Collect, type Order } from './order-change';

type ShippingMode = 'keep' | 'rate' | 'custom';

/**
 * Edit an order before it ships: add variant lines, change the quantity of or remove a line nothing
 * of which was fulfilled, refunded or returned, change shipping. Preview first, then commit.
 */
export function OrderEditForm({ order }: { order: Order }) {
  const rates = useShippingRates();
  const [quantities, setQuantities] = useState<Record<string, number>>({});
  const [removed, setRemoved] = useState<Record<string, boolean>>({});
  const [added, setAdded] = useState<Array<PickedVariant & { quantity: number }>>([]);
  const [shippingMode, setShippingMode] = useState<ShippingMode>('keep');
  const [rateId, setRateId] = useState('');
  const [customTitle, setCustomTitle] = useState('');
  const [customPrice, setCustomPrice] = useState<number | string>('');
  const [reason, setReason] = useState('');
  const [notifyCustomer, setNotify] = useState(false);
  const [collect, setCollect] = useState<Collect | null>(null);
  const reset = () => (setQuantities({}), setRemoved({}), setAdded([]), setShippingMode('keep'), setReason(''), setCollect(null));
  const { preview, commit, invoice, error } = useOrderChange(order, 'edits', reset);
  const editable = order.items.filter(changeable);
  const body = () => ({
    ...(added.length ? { add: added.map((line) => ({ variantId: line.variantId, quantity: line.quantity })) } : {}),
    ...(() => {
      const change = editable.filter((item) => !removed[item.id] && quantities[item.id] !== undefined && quantities[item.id] !== item.quantity).map((item) => ({ orderItemId: item.id, quantity: quantities[item.id]! }));
      return change.length ? { change } : {};
    })(),
    ...(editable.some((item) => removed[item.id]) ? { remove: editable.filter((item) => removed[item.id]).map((item) => item.id) } : {}),
    ...(shippingMode === 'rate' ? { shippingRateId: rateId } : shippingMode === 'custom' ? { customShipping: { title: customTitle, price: Math.round(Number(customPrice || 0) * 100) } } : {}),
    ...(reason.trim() ? { reason: reason.trim() } : {}),
    ...(collect ? { collect } : {}),
    notifyCustomer
  });
  const changed = () => (preview.reset(), commit.reset(), setCollect(null));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    preview.mutate(body());
  };
  return (
    <Card withBorder component="section" aria-labelledby="edit-title">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="edit-title">
            Edit order
          </Title>
          {editable.length === 0 && <Text size="sm">Every line was fulfilled, refunded or returned: lines can only be added.</Text>}
          {editable.map((item) => (
            <Group key={item.id} align="flex-end" wrap="wrap">
              <NumberInput
                label={`New quantity of ${item.title}`}
                min={1}
                allowDecimal={false}
                disabled={removed[item.id]}
                value={quantities[item.id] ?? item.quantity}
                onChange={(value) => (setQuantities((q) => ({ ...q, [item.id]: Number(value) || 1 })), changed())}
                w={200}
              />
              <Checkbox label={`Remove ${item.title}`} mb={8} checked={removed[item.id] ?? false} onChange={(e) => (setRemoved((r) => ({ ...r, [item.id]: e.currentTarget.checked })), changed())} />
            </Group>
          ))}
          {added.map((line, index) => (
            <Group key={line.variantId} align="flex-end" wrap="wrap" data-testid="added-line">
              <NumberInput
                label={`Quantity of ${line.title} to add`}
                min={1}
                allowDecimal={false}
                value={line.quantity}
                onChange={(value) => (setAdded((lines) => lines.map((l, i) => (i === index ? { ...l, quantity: Number(value) || 1 } : l))), changed())}
                w={220}
              />
              <ActionIcon variant="default" size="lg" mb={2} aria-label={`Do not add ${line.title}`} onClick={() => (setAdded((lines) => lines.filter((_, i) => i !== index)), changed())}>
                ×
              </ActionIcon>
            </Group>
          ))}
          <VariantSearch
            label="Add a product"
            currency={order.currency}
            onPick={(variant) => (setAdded((lines) => (lines.some((l) => l.variantId === variant.variantId) ? lines : [...lines, { ...variant, quantity: 1 }])), changed())}
          />
          <Radio.Group label="Shipping" value={shippingMode} onChange={(value) => (setShippingMode(value as ShippingMode), changed())}>
            <Group mt={4}>
              <Radio value="keep" label={`Keep ${order.shippingMethod?.name ?? 'as is'}`} />
              <Radio value="rate" label="Another rate" />
              <Radio value="custom" label="Custom shipping" />
            </Group>
          </Radio.Group>
          {shippingMode === 'rate' && (
            <NativeSelect
              label="Shipping rate"
              w={320}
              value={rateId}
              onChange={(e) => (setRateId(e.currentTarget.value), changed())}
              data={[{ value: '', label: 'Choose a rate' }, ...(rates.data ?? [])]}
              error={fieldError(error, 'shippingRateId')}
            />
          )}
          {shippingMode === 'custom' && (
            <Group align="flex-start">
              <TextInput label="Shipping title" value={customTitle} onChange={(e) => (setCustomTitle(e.currentTarget.value), changed())} error={fieldError(error, 'customShipping.title')} />
              <NumberInput label="Shipping price" min={0} decimalScale={2} w={160} value={customPrice} onChange={(value) => (setCustomPrice(value), changed())} />
            </Group>
          )}
          <TextInput label="Reason for the change" value={reason} onChange={(e) => setReason(e.currentTarget.value)} error={fieldError(error, 'reason')} />
          <Checkbox label="Email the customer about the change" checked={notifyCustomer} onChange={(e) => setNotify(e.currentTarget.checked)} />
          <Button type="submit" variant="default" w="fit-content" loading={preview.isPending}>
            Preview changes
          </Button>
          {preview.data && (
            <ChangePreviewBox order={order} preview={preview.data} collect={collect} onCollect={setCollect} onCommit={() => commit.mutate(body())} pending={commit.isPending} commitLabel="Save changes" />
          )}
          {commit.isSuccess && (
            <Text size="sm" role="status" data-testid="edit-saved">
              Changes saved.
            </Text>
          )}
          {commit.isSuccess && <BalanceInvoiceLink invoice={invoice} currency={order.currency} />}
          <FormError error={error} fields={['reason', 'shippingRateId', 'customShipping.title']} />
        </Stack>
      </form>
    </Card>
  );
}
