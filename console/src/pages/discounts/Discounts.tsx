import { Button, Group, Stack, Table, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormError } from '../../components/FormError';
import { ListState } from '../../components/ListState';
import { formatMoney } from '../../components/Money';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';
import { DiscountForm, discountBody } from './DiscountForm';

type Discount = components['schemas']['Discount'];

/** Discounts: newest first; create, edit, activate and deactivate; delete an unused code (a used one is refused: deactivate it). */
export function Discounts() {
  const pager = useCursor();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Discount | null>(null);
  const [q, setQ] = useState('');
  // Debounced like the customers list: one request once typing pauses, not one per key.
  const [search] = useDebouncedValue(q.trim(), 250);
  const discounts = useQuery({
    queryKey: ['discounts', search, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/admin/discounts', { params: { query: { limit: 20, ...(search ? { q: search } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) } } }))
  });
  const toggle = useMutation({
    mutationFn: async (d: Discount) =>
      unwrap(await api.PUT('/api/v1/admin/discounts/{discountId}', { params: { path: { discountId: d.id } }, body: { ...discountBody(d), isActive: !d.isActive } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['discounts'] })
  });
  const remove = useMutation({
    mutationFn: async (d: Discount) => unwrap(await api.DELETE('/api/v1/admin/discounts/{discountId}', { params: { path: { discountId: d.id } } })),
    onSuccess: (_, d) => {
      if (editing?.id === d.id) setEditing(null);
      void queryClient.invalidateQueries({ queryKey: ['discounts'] });
    }
  });
  return (
    <Stack>
      <Title order={1}>Discounts</Title>
      <DiscountForm key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />
      <Title order={2} size="h4">
        Newest first
      </Title>
      <TextInput label="Search discounts" description="Part of the code" maw={360} value={q} onChange={(e) => (setQ(e.currentTarget.value), pager.reset())} />
      <div className="table-scroll">
        <Table striped aria-label="Discounts">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Code</Table.Th>
              <Table.Th>Discount</Table.Th>
              <Table.Th>Active</Table.Th>
              <Table.Th>Used</Table.Th>
              <Table.Th>
                <span className="visually-hidden">Actions</span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {discounts.data?.data.discounts.map((d) => (
              <Table.Tr key={d.id}>
                <Table.Td>{d.code}</Table.Td>
                <Table.Td>{d.type === 'percentage' ? `${d.value}%` : d.type === 'fixed_amount' ? formatMoney(d.value) : 'Free shipping'}</Table.Td>
                <Table.Td data-testid="discount-active">{d.isActive ? 'Yes' : 'No'}</Table.Td>
                <Table.Td>
                  {d.usageCount}
                  {d.usageLimit ? ` of ${d.usageLimit}` : ''}
                </Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap" align="flex-start">
                    <Button size="xs" variant="default" onClick={() => setEditing(d)} aria-label={`Edit ${d.code}`}>
                      Edit
                    </Button>
                    <Button size="xs" variant="default" onClick={() => toggle.mutate(d)} loading={toggle.isPending && toggle.variables?.id === d.id} aria-label={`${d.isActive ? 'Deactivate' : 'Activate'} ${d.code}`}>
                      {d.isActive ? 'Deactivate' : 'Activate'}
                    </Button>
                    <ConfirmButton
                      size="xs"
                      label="Delete"
                      ariaLabel={`Delete ${d.code}`}
                      question={`Delete ${d.code}?`}
                      confirm={`Yes, delete ${d.code}`}
                      onConfirm={() => remove.mutate(d)}
                      pending={remove.isPending && remove.variables?.id === d.id}
                      error={remove.variables?.id === d.id ? remove.error : null}
                    />
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <FormError error={toggle.error} />
      <ListState query={discounts} count={discounts.data?.data.discounts.length} empty={search ? 'No discount code matches this search.' : 'No discounts yet: create a code above.'} label="discounts" />
      <Pager pager={pager} nextCursor={nextCursorOf(discounts.data?.meta)} />
    </Stack>
  );
}
