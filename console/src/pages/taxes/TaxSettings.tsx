import { Button, Card, Checkbox, Group, NativeSelect, Stack, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { ListState } from '../../components/ListState';

type Provider = 'rates' | 'stripe_tax';

/** The store's tax settings (PATCH /admin/store): whether prices include tax, and who computes it. */
export function TaxSettings() {
  const queryClient = useQueryClient();
  const store = useQuery({ queryKey: ['dashboard'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store')).data });
  const [form, setForm] = useState<{ pricesIncludeTax: boolean; taxProvider: Provider } | null>(null);
  useEffect(() => {
    const s = store.data?.store;
    if (s && !form) setForm({ pricesIncludeTax: s.pricesIncludeTax, taxProvider: s.taxProvider });
  }, [store.data, form]);
  const save = useMutation({
    mutationFn: async (body: { pricesIncludeTax: boolean; taxProvider: Provider }) => unwrap(await api.PATCH('/api/v1/admin/store', { body })).data,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (form) save.mutate(form);
  };
  return (
    <Card withBorder component="section" aria-labelledby="tax-settings-title">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="tax-settings-title">
            How tax is charged
          </Title>
          {!form ? (
            <ListState query={store} count={undefined} empty="" label="the tax settings" />
          ) : (
            <>
              <Checkbox
                label="Prices include tax (VAT style: product and shipping prices already contain it)"
                checked={form.pricesIncludeTax}
                onChange={(e) => setForm({ ...form, pricesIncludeTax: e.currentTarget.checked })}
              />
              <NativeSelect
                label="Tax computed by"
                value={form.taxProvider}
                onChange={(e) => setForm({ ...form, taxProvider: e.currentTarget.value as Provider })}
                data={[
                  { value: 'rates', label: 'The tax regions below' },
                  { value: 'stripe_tax', label: 'Stripe Tax (connected payments account)' }
                ]}
                maw={360}
              />
              <FormError error={save.error} />
              <Group>
                <Button type="submit" loading={save.isPending}>
                  Save tax settings
                </Button>
                {save.isSuccess && <span role="status">Tax settings saved</span>}
              </Group>
            </>
          )}
        </Stack>
      </form>
    </Card>
  );
}
