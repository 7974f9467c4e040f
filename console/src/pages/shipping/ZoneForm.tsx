import { Button, Card, Group, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';
import { emptyRate, listOf, rateBody, rateDraftOf, type RateDraft } from './rate-draft';
import { RatesEditor } from './RatesEditor';

type Zone = components['schemas']['ShippingZone'];

/** A new shipping zone, or one edited: where it ships (countries, regions, postcodes) and its rates. */
export function ZoneForm({ editing, onDone }: { editing: Zone | null; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({
    name: editing?.name ?? '',
    countries: editing?.countries.join(', ') ?? '',
    regions: editing?.regions.join(', ') ?? '',
    postcodes: editing?.postcodes.join(', ') ?? ''
  });
  const [rates, setRates] = useState<RateDraft[]>(editing ? editing.rates.map(rateDraftOf) : [emptyRate()]);
  const save = useMutation({
    mutationFn: async () => {
      const body = { name: form.name, countries: listOf(form.countries), regions: listOf(form.regions), postcodes: listOf(form.postcodes), rates: rates.map(rateBody) };
      if (editing) return unwrap(await api.PATCH('/api/v1/admin/shipping-zones/{zoneId}', { params: { path: { zoneId: editing.id } }, body })).data.zone;
      return unwrap(await api.POST('/api/v1/admin/shipping-zones', { body })).data.zone;
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['shipping-zones'] });
      onDone();
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
  const shown = ['name', 'countries', 'regions', 'postcodes'];
  return (
    <Card withBorder component="section" aria-labelledby="zone-form-title">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="zone-form-title">
            {editing ? `Edit ${editing.name}` : 'New shipping zone'}
          </Title>
          <Group align="flex-start" grow>
            <TextInput label="Zone name" required value={form.name} onChange={set('name')} error={fieldError(save.error, 'name')} />
            <TextInput label="Countries" description="e.g. US, CA; empty: every country" value={form.countries} onChange={set('countries')} error={fieldError(save.error, 'countries')} />
          </Group>
          <Group align="flex-start" grow>
            <TextInput label="Regions (optional)" description="e.g. US-CA, NY" value={form.regions} onChange={set('regions')} error={fieldError(save.error, 'regions')} />
            <TextInput label="Postcodes (optional)" description="e.g. 9*, 10000..14999" value={form.postcodes} onChange={set('postcodes')} error={fieldError(save.error, 'postcodes')} />
          </Group>
          <Title order={3} size="h5">
            Rates
          </Title>
          <RatesEditor rates={rates} onChange={setRates} error={save.error} />
          <FormError error={save.error} fields={shown} />
          <Group>
            <Button type="submit" loading={save.isPending}>
              {editing ? 'Save zone' : 'Create zone'}
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
