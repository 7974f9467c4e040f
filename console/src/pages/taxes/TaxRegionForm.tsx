import { Button, Card, Checkbox, Group, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';

type TaxRegion = components['schemas']['TaxRegion'];

/** Basis points as a percentage an operator types: 725 ↔ "7.25". */
export const percentOf = (basisPoints: number) => String(basisPoints / 100);
const basisPoints = (percent: string) => Math.round(Number.parseFloat(percent.replace(',', '.')) * 100);

/** "reduced 7, zero 0" ↔ { reduced: 700, zero: 0 } (a class the text cannot read is sent as not a number: the API names it). */
const classRatesText = (rates: Record<string, number>) =>
  Object.entries(rates)
    .map(([name, bp]) => `${name} ${percentOf(bp)}`)
    .join(', ');
function classRatesOf(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const match = /^(\S+?)\s*[:=\s]\s*([\d.,]+)\s*%?$/.exec(part);
    out[match ? match[1]! : part] = match ? basisPoints(match[2]!) : Number.NaN;
  }
  return out;
}

/** A tax region created or edited: a country or one of its regions, its rate, class overrides, tax on shipping. */
export function TaxRegionForm({ editing, onDone }: { editing: TaxRegion | null; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({
    country: editing?.country ?? '',
    region: editing?.region ?? '',
    name: editing?.name ?? '',
    rate: editing ? percentOf(editing.rate) : '',
    classRates: editing ? classRatesText(editing.classRates) : '',
    taxShipping: editing?.taxShipping ?? false
  });
  const save = useMutation({
    mutationFn: async () => {
      const body = { country: form.country, region: form.region.trim() || null, name: form.name, rate: basisPoints(form.rate), classRates: classRatesOf(form.classRates), taxShipping: form.taxShipping };
      if (editing) return unwrap(await api.PATCH('/api/v1/admin/tax-regions/{regionId}', { params: { path: { regionId: editing.id } }, body })).data.taxRegion;
      return unwrap(await api.POST('/api/v1/admin/tax-regions', { body })).data.taxRegion;
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['tax-regions'] });
      onDone();
    }
  });
  const set = (field: 'country' | 'region' | 'name' | 'rate' | 'classRates') => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setForm((old) => ({ ...old, [field]: value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const error = (field: string) => fieldError(save.error, field);
  return (
    <Card withBorder component="section" aria-labelledby="tax-region-form-title">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="tax-region-form-title">
            {editing ? `Edit ${editing.name}` : 'New tax region'}
          </Title>
          <Group align="flex-start" grow>
            <TextInput label="Country" description="e.g. US" required value={form.country} onChange={set('country')} error={error('country')} />
            <TextInput label="Region (optional)" description="e.g. CA or US-CA; empty: the whole country" value={form.region} onChange={set('region')} error={error('region')} />
          </Group>
          <Group align="flex-start" grow>
            <TextInput label="Tax name" description="shown on tax lines, e.g. VAT" required value={form.name} onChange={set('name')} error={error('name')} />
            <TextInput label="Rate (%)" inputMode="decimal" required value={form.rate} onChange={set('rate')} error={error('rate')} />
          </Group>
          <TextInput
            label="Tax class rates (optional)"
            description="class and rate in %, comma separated, e.g. reduced 7, zero 0"
            value={form.classRates}
            onChange={set('classRates')}
            error={error('classRates')}
          />
          <Checkbox label="Charge this rate on shipping" checked={form.taxShipping} onChange={(e) => {
              // Read now: React clears currentTarget before a deferred updater runs.
              const taxShipping = e.currentTarget.checked;
              setForm((old) => ({ ...old, taxShipping }));
            }}
          />
          <FormError error={save.error} fields={['country', 'region', 'name', 'rate', 'classRates']} />
          <Group>
            <Button type="submit" loading={save.isPending}>
              {editing ? 'Save tax region' : 'Create tax region'}
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
