import { Button, Card, Group, NativeSelect, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';
import { toMinor } from '../products/product-draft';

type Kind = 'percentage' | 'fixed_amount' | 'free_shipping';
type Discount = components['schemas']['Discount'];

/** A discount as PUT wants it (PUT replaces: every field it has is sent back). */
export const discountBody = (d: Discount) => ({
  code: d.code,
  type: d.type,
  isActive: d.isActive,
  usageLimit: d.usageLimit,
  startsAt: d.startsAt,
  endsAt: d.endsAt,
  minimumOrderAmount: d.minimumOrderAmount,
  ...(d.type !== 'free_shipping' && d.value !== null ? { value: d.value } : {})
});

/** A new discount code, or an existing one edited: a percentage, an amount off (typed in major units) or free shipping. */
export function DiscountForm({ editing, onDone }: { editing?: Discount | null; onDone?: () => void }) {
  const [form, setForm] = useState({
    code: editing?.code ?? '',
    type: (editing?.type ?? 'percentage') as Kind,
    value: editing?.value == null ? '' : editing.type === 'fixed_amount' ? (editing.value / 100).toFixed(2) : String(editing.value),
    usageLimit: editing?.usageLimit ? String(editing.usageLimit) : ''
  });
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: async () => {
      const value = form.type === 'percentage' ? Number(form.value) : form.type === 'fixed_amount' ? toMinor(form.value) : undefined;
      const fields = { code: form.code, type: form.type, ...(value !== undefined ? { value } : {}), usageLimit: form.usageLimit ? Number(form.usageLimit) : null };
      if (editing) {
        const body = { ...discountBody(editing), ...fields };
        if (form.type === 'free_shipping') delete (body as { value?: number }).value;
        return unwrap(await api.PUT('/api/v1/admin/discounts/{discountId}', { params: { path: { discountId: editing.id } }, body })).data.discount;
      }
      return unwrap(await api.POST('/api/v1/admin/discounts', { body: { ...fields, isActive: true } })).data.discount;
    },
    onSuccess: () => {
      setForm((old) => ({ ...old, code: '', value: '' }));
      void queryClient.invalidateQueries({ queryKey: ['discounts'] });
      if (editing) onDone?.();
    }
  });
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setForm((old) => ({ ...old, [field]: value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Card withBorder component="section" aria-labelledby="discount-form-title">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="discount-form-title">
            {editing ? `Edit ${editing.code}` : 'New discount'}
          </Title>
          <Group align="flex-start">
            <TextInput label="Code" required value={form.code} onChange={set('code')} error={fieldError(save.error, 'code')} />
            <NativeSelect
              label="Type"
              value={form.type}
              onChange={set('type')}
              data={[
                { value: 'percentage', label: 'Percentage' },
                { value: 'fixed_amount', label: 'Amount off' },
                { value: 'free_shipping', label: 'Free shipping' }
              ]}
            />
            {form.type !== 'free_shipping' && (
              <TextInput label={form.type === 'percentage' ? 'Percent off' : 'Amount off'} inputMode="decimal" required value={form.value} onChange={set('value')} error={fieldError(save.error, 'value')} />
            )}
            <TextInput label="Usage limit (optional)" inputMode="numeric" value={form.usageLimit} onChange={set('usageLimit')} error={fieldError(save.error, 'usageLimit')} />
          </Group>
          <FormError error={save.error} fields={['code', 'value', 'usageLimit']} />
          <Group>
            <Button type="submit" loading={save.isPending} w="fit-content">
              {editing ? 'Save discount' : 'Create discount'}
            </Button>
            {editing && (
              <Button variant="default" onClick={onDone}>
                Cancel editing
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
