import { Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';
import { toMinor } from '../products/product-draft';

type Method = components['schemas']['ShippingMethod'];
interface Row {
  id?: string;
  name: string;
  price: string;
  freeOverAmount: string;
  countries: string;
}

const toRow = (m: Method): Row => ({
  id: m.id,
  name: m.name,
  price: (m.price / 100).toFixed(2),
  freeOverAmount: m.freeOverAmount === null ? '' : (m.freeOverAmount / 100).toFixed(2),
  countries: (m.countries ?? []).join(', ')
});

/** The store's shipping methods (the flat `shippingMethods` setting): name, price, free over an amount, countries (empty: everywhere). */
export function ShippingSettings({ methods }: { methods: Method[] }) {
  const queryClient = useQueryClient();
  const [rows, setRows] = useState<Row[]>(methods.map(toRow));
  const save = useMutation({
    mutationFn: async () => {
      const shippingMethods = rows.map((r) => {
        const countries = r.countries.split(',').map((c) => c.trim().toUpperCase()).filter(Boolean);
        return { ...(r.id ? { id: r.id } : {}), name: r.name, price: toMinor(r.price), freeOverAmount: r.freeOverAmount ? toMinor(r.freeOverAmount) : null, countries: countries.length ? countries : null };
      });
      return unwrap(await api.PATCH('/api/v1/admin/store', { body: { shippingMethods } })).data;
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
  });
  const set = (index: number, field: keyof Row) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setRows((old) => old.map((row, i) => (i === index ? { ...row, [field]: value } : row)));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Card withBorder component="section" aria-labelledby="shipping-title" maw={760}>
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="shipping-title">
            Shipping
          </Title>
          {rows.length === 0 && <Text size="sm">No shipping methods: checkout offers none. Add one.</Text>}
          {rows.map((row, i) => (
            <Group key={row.id ?? `new-${i}`} align="flex-start" data-testid="shipping-method">
              <TextInput label={`Method ${i + 1} name`} required value={row.name} onChange={set(i, 'name')} />
              <TextInput label={`Method ${i + 1} price`} inputMode="decimal" required value={row.price} onChange={set(i, 'price')} w={120} />
              <TextInput label={`Method ${i + 1} free over`} inputMode="decimal" value={row.freeOverAmount} onChange={set(i, 'freeOverAmount')} w={120} />
              <TextInput label={`Method ${i + 1} countries`} description="e.g. US, CA; empty: everywhere" value={row.countries} onChange={set(i, 'countries')} />
              <Button variant="subtle" color="red" mt={24} onClick={() => setRows((old) => old.filter((_, j) => j !== i))} aria-label={`Remove method ${i + 1}`}>
                Remove
              </Button>
            </Group>
          ))}
          <FormError error={save.error} />
          <Group>
            <Button variant="default" onClick={() => setRows((old) => [...old, { name: '', price: '', freeOverAmount: '', countries: '' }])}>
              Add shipping method
            </Button>
            <Button type="submit" loading={save.isPending}>
              Save shipping
            </Button>
            {save.isSuccess && <span role="status">Shipping saved</span>}
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
