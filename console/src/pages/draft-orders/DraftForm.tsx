import { Button, Card, Group, NativeSelect, NumberInput, Radio, Stack, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { CustomerPicker } from './CustomerPicker';
import { DraftLines } from './DraftLines';
import { bodyOf, emptyForm, formOf, type AddressForm, type DraftFormState, type DraftOrder } from './draft-form-state';
import { useShippingRates } from './shipping-rates';

const ADDRESS_FIELDS: Array<[keyof AddressForm, string]> = [
  ['firstName', 'First name'],
  ['lastName', 'Last name'],
  ['line1', 'Address line 1'],
  ['city', 'City'],
  ['postalCode', 'Postal code'],
  ['country', 'Country code']
];

/** The fields a form control shows its own error for (the rest are listed under the form). */
const SHOWN = ['email', 'customerId', 'shippingRateId', 'customShipping.title', 'customShipping.price', 'discountCode', 'manualDiscount.value', 'note'];

/**
 * Create a draft (POST, with an Idempotency-Key so a double submit makes one) or change an open one
 * (PATCH: lines replace all lines). The totals are the API's: shown on the draft once saved.
 */
export function DraftForm({ draft, currency }: { draft?: DraftOrder; currency: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const rates = useShippingRates();
  const [form, setForm] = useState<DraftFormState>(() => (draft ? formOf(draft) : emptyForm()));
  const [key] = useState(() => crypto.randomUUID());
  const set = (change: Partial<DraftFormState>) => setForm((old) => ({ ...old, ...change }));
  const save = useMutation({
    mutationFn: async () => {
      if (draft) {
        const body = bodyOf(form, true);
        return unwrap(await api.PATCH('/api/v1/admin/draft-orders/{draftOrderId}', { params: { path: { draftOrderId: draft.id } }, body: body as never })).data.draftOrder;
      }
      return unwrap(await api.POST('/api/v1/admin/draft-orders', { body: bodyOf(form) as never, headers: { 'idempotency-key': key } })).data.draftOrder;
    },
    onSuccess: (saved) => {
      queryClient.setQueryData(['draft-order', saved.id], saved);
      void queryClient.invalidateQueries({ queryKey: ['draft-orders'] });
      if (!draft) navigate(`/draft-orders/${saved.id}`);
    }
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const error = save.error;
  return (
    <Card withBorder component="form" onSubmit={submit} aria-label="Draft order">
      <Stack>
        <CustomerPicker form={form} set={set} error={error} />
        <DraftLines lines={form.lines} onChange={(lines) => set({ lines })} currency={currency} error={error} />
        <Stack gap="xs" component="fieldset" style={{ border: 0, padding: 0, margin: 0 }}>
          <Title order={2} size="h4" component="legend">
            Shipping address
          </Title>
          <Group wrap="wrap" align="flex-start">
            {ADDRESS_FIELDS.map(([field, label]) => (
              <TextInput
                key={field}
                label={label}
                w={field === 'line1' ? 260 : 160}
                value={form.address[field]}
                onChange={(e) => set({ address: { ...form.address, [field]: e.currentTarget.value } })}
                error={fieldError(error, `shippingAddress.${field}`)}
              />
            ))}
          </Group>
        </Stack>
        <Radio.Group label="Shipping" value={form.shippingMode} onChange={(value) => set({ shippingMode: value as DraftFormState['shippingMode'] })}>
          <Group mt={4}>
            <Radio value="none" label="None" />
            <Radio value="rate" label="A shipping rate" />
            <Radio value="custom" label="Custom shipping" />
          </Group>
        </Radio.Group>
        {form.shippingMode === 'rate' && (
          <NativeSelect
            label="Shipping rate"
            value={form.shippingRateId}
            onChange={(e) => set({ shippingRateId: e.currentTarget.value })}
            data={[{ value: '', label: rates.isPending ? 'Loading rates…' : 'Choose a rate' }, ...(rates.data ?? [])]}
            error={fieldError(error, 'shippingRateId') ?? (rates.isError ? 'Could not load the shipping rates' : undefined)}
            w={320}
          />
        )}
        {form.shippingMode === 'custom' && (
          <Group align="flex-start">
            <TextInput label="Shipping title" value={form.customShippingTitle} onChange={(e) => set({ customShippingTitle: e.currentTarget.value })} error={fieldError(error, 'customShipping.title')} />
            <NumberInput label="Shipping price" min={0} decimalScale={2} value={form.customShippingPrice} onChange={(value) => set({ customShippingPrice: value })} w={160} error={fieldError(error, 'customShipping.price')} />
          </Group>
        )}
        <Radio.Group label="Discount" value={form.discountMode} onChange={(value) => set({ discountMode: value as DraftFormState['discountMode'] })}>
          <Group mt={4}>
            <Radio value="none" label="None" />
            <Radio value="code" label="A discount code" />
            <Radio value="manual" label="Manual discount" />
          </Group>
        </Radio.Group>
        {form.discountMode === 'code' && <TextInput label="Discount code" w={240} value={form.discountCode} onChange={(e) => set({ discountCode: e.currentTarget.value })} error={fieldError(error, 'discountCode')} />}
        {form.discountMode === 'manual' && (
          <Group align="flex-start">
            <NativeSelect
              label="Discount type"
              value={form.manualType}
              onChange={(e) => set({ manualType: e.currentTarget.value as DraftFormState['manualType'] })}
              data={[
                { value: 'percentage', label: 'Percentage' },
                { value: 'fixed_amount', label: 'Fixed amount' }
              ]}
            />
            <NumberInput
              label={form.manualType === 'percentage' ? 'Discount percent' : 'Discount amount'}
              min={0}
              decimalScale={2}
              value={form.manualValue}
              onChange={(value) => set({ manualValue: value })}
              w={160}
              error={fieldError(error, 'manualDiscount.value')}
            />
          </Group>
        )}
        <Textarea label="Note" autosize minRows={2} value={form.note} onChange={(e) => set({ note: e.currentTarget.value })} error={fieldError(error, 'note')} />
        <FormError error={error} fields={SHOWN} />
        <Group>
          <Button type="submit" loading={save.isPending}>
            {draft ? 'Save draft' : 'Create draft'}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
