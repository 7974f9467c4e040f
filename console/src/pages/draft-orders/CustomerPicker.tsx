import { Button, Group, Radio, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { DraftFormState } from './draft-form-state';

type Patch = (change: Partial<DraftFormState>) => void;

/** Who the draft is for: an email typed in, or one of the store's customers found by name or email. */
export function CustomerPicker({ form, set, error }: { form: DraftFormState; set: Patch; error: unknown }) {
  const [q, setQ] = useState('');
  const [search] = useDebouncedValue(q.trim(), 250);
  // The matches close with the choice, not a debounce later (VariantSearch says why).
  const open = q.trim().length > 0;
  const found = useQuery({
    queryKey: ['customer-search', search],
    enabled: form.customerMode === 'customer' && search.length > 0,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/customers', { params: { query: { q: search, limit: 5 } } })).data.customers
  });
  const matches = open ? (found.data ?? []) : [];
  return (
    <Stack gap="xs">
      <Radio.Group label="Customer" value={form.customerMode} onChange={(value) => set({ customerMode: value as DraftFormState['customerMode'] })}>
        <Group mt={4}>
          <Radio value="email" label="By email" />
          <Radio value="customer" label="An existing customer" />
        </Group>
      </Radio.Group>
      {form.customerMode === 'email' ? (
        <TextInput label="Customer email" type="email" value={form.email} onChange={(e) => set({ email: e.currentTarget.value })} error={fieldError(error, 'email')} />
      ) : (
        <Stack gap={4}>
          {form.customerId && (
            <Text size="sm" data-testid="chosen-customer">
              Chosen: {form.customerLabel}
            </Text>
          )}
          <TextInput label="Find a customer" description="Name or email" value={q} onChange={(e) => setQ(e.currentTarget.value)} error={fieldError(error, 'customerId')} />
          {open && search && found.isSuccess && matches.length === 0 && <Text size="sm">No customer matches “{search}”.</Text>}
          {matches.map((customer) => (
            <Group key={customer.id} justify="space-between" wrap="nowrap">
              <Text size="sm">
                {[customer.firstName, customer.lastName].filter(Boolean).join(' ')} {customer.email}
              </Text>
              <Button
                size="xs"
                variant="default"
                aria-label={`Choose ${customer.email}`}
                onClick={() => {
                  set({ customerId: customer.id, customerLabel: customer.email });
                  setQ('');
                }}
              >
                Choose
              </Button>
            </Group>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
