import { Button, Checkbox, Group, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { ShippingSettings } from './ShippingSettings';

interface Form {
  name: string;
  contactEmail: string;
  timezone: string;
  currency: string;
  storefrontUrl: string;
  manualPaymentsEnabled: boolean;
  newsletterDoubleOptIn: boolean;
}

/** The store's general settings (PATCH /admin/store); currency is refused (409) once orders exist. */
export function StoreSettings() {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Form | null>(null);
  const store = useQuery({ queryKey: ['dashboard'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store')).data });
  useEffect(() => {
    const s = store.data?.store;
    if (s && !form) {
      setForm({
        name: s.name,
        contactEmail: s.contactEmail ?? '',
        timezone: s.timezone,
        currency: s.currency,
        storefrontUrl: s.storefrontUrl ?? '',
        manualPaymentsEnabled: s.manualPaymentsEnabled,
        newsletterDoubleOptIn: s.newsletterDoubleOptIn
      });
    }
  }, [store.data, form]);
  const save = useMutation({
    mutationFn: async (f: Form) => {
      const body = { ...f, contactEmail: f.contactEmail || null, storefrontUrl: f.storefrontUrl || null };
      return unwrap(await api.PATCH('/api/v1/admin/store', { body })).data;
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
  });
  if (!form) return null;
  const set = (field: 'name' | 'contactEmail' | 'timezone' | 'currency' | 'storefrontUrl') => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setForm((old) => old && { ...old, [field]: value });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(form);
  };
  const error = (field: string) => fieldError(save.error, field);
  return (
    <Stack>
    <form onSubmit={submit}>
      <Stack maw={560}>
        <Title order={1}>Store settings</Title>
        <TextInput label="Store name" required value={form.name} onChange={set('name')} error={error('name')} />
        <TextInput label="Contact email" type="email" value={form.contactEmail} onChange={set('contactEmail')} error={error('contactEmail')} />
        <Group grow>
          <TextInput label="Time zone" value={form.timezone} onChange={set('timezone')} error={error('timezone')} />
          <TextInput label="Currency" value={form.currency} onChange={set('currency')} error={error('currency')} />
        </Group>
        <TextInput label="Storefront URL" type="url" value={form.storefrontUrl} onChange={set('storefrontUrl')} error={error('storefrontUrl')} />
        <Checkbox label="Accept manual payments" checked={form.manualPaymentsEnabled} onChange={(e) => setForm({ ...form, manualPaymentsEnabled: e.currentTarget.checked })} />
        <Checkbox label="Newsletter double opt-in" checked={form.newsletterDoubleOptIn} onChange={(e) => setForm({ ...form, newsletterDoubleOptIn: e.currentTarget.checked })} />
        <FormError error={save.error} fields={['name', 'contactEmail', 'timezone', 'currency', 'storefrontUrl']} />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save settings
          </Button>
          {save.isSuccess && <span role="status">Saved</span>}
        </Group>
      </Stack>
    </form>
    {store.data && <ShippingSettings methods={store.data.store.shippingMethods} />}
    </Stack>
  );
}
