import { Button, Card, Group, NativeSelect, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { toMinor } from '../products/product-draft';

type Kind = 'percentage' | 'fixed_amount' | 'free_shipping';

/** A new discount code: a percentage, an amount off (typed in major units) or free shipping. */
export function DiscountForm() {
  const [form, setForm] = useState({ code: '', type: 'percentage' as Kind, value: '', usageLimit: '' });
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: async () => {
      const value = form.type === 'percentage' ? Number(form.value) : form.type === 'fixed_amount' ? toMinor(form.value) : undefined;
      const body = { code: form.code, type: form.type, isActive: true, ...(value !== undefined ? { value } : {}), ...(form.usageLimit ? { usageLimit: Number(form.usageLimit) } : {}) };
      return unwrap(await api.POST('/api/v1/admin/discounts', { body })).data.discount;
    },
    onSuccess: () => {
      setForm((old) => ({ ...old, code: '', value: '' }));
      void queryClient.invalidateQueries({ queryKey: ['discounts'] });
    }
  });
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setForm((old) => ({ ...old, [field]: value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Card withBorder component="section" aria-labelledby="new-discount">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="new-discount">
            New discount
          </Title>
          <Group align="flex-start">
            <TextInput label="Code" required value={form.code} onChange={set('code')} error={fieldError(create.error, 'code')} />
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
              <TextInput label={form.type === 'percentage' ? 'Percent off' : 'Amount off'} inputMode="decimal" required value={form.value} onChange={set('value')} error={fieldError(create.error, 'value')} />
            )}
            <TextInput label="Usage limit (optional)" inputMode="numeric" value={form.usageLimit} onChange={set('usageLimit')} error={fieldError(create.error, 'usageLimit')} />
          </Group>
          <FormError error={create.error} fields={['code', 'value', 'usageLimit']} />
          <Button type="submit" loading={create.isPending} w="fit-content">
            Create discount
          </Button>
        </Stack>
      </form>
    </Card>
  );
}
