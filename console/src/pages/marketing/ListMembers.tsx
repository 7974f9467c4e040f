import { Button, Card, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';

type MarketingList = components['schemas']['MarketingList'];

/**
 * A list's members: find customers (by email or name) to add, remove members. The API replaces the
 * membership with PUT { name, description, customerIds }.
 */
export function ListMembers({ list, onClose }: { list: MarketingList; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [q, setQ] = useState('');
  const [search] = useDebouncedValue(q, 250);
  const members = useQuery({
    queryKey: ['list-members', list.id, list.customerIds.length],
    enabled: list.customerIds.length > 0,
    // Members' emails: the customers, fetched by id (a list is small; the first 50 are shown).
    queryFn: async () =>
      Promise.all(
        list.customerIds.slice(0, 50).map(async (customerId) => unwrap(await api.GET('/api/v1/admin/customers/{customerId}', { params: { path: { customerId } } })).data.customer)
      )
  });
  const found = useQuery({
    queryKey: ['customers', 'list-search', search],
    enabled: search.trim().length > 0,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/customers', { params: { query: { limit: 10, q: search } } })).data.customers
  });
  const save = useMutation({
    mutationFn: async (customerIds: string[]) =>
      unwrap(await api.PUT('/api/v1/admin/marketing/lists/{listId}', { params: { path: { listId: list.id } }, body: { name: list.name, description: list.description, customerIds } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['marketing-lists'] })
  });
  const inList = new Set(list.customerIds);
  return (
    <Card withBorder component="section" aria-labelledby="list-members-title">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4" id="list-members-title">
            Members of {list.name}
          </Title>
          <Button size="xs" variant="default" onClick={onClose}>
            Close members
          </Button>
        </Group>
        <TextInput label="Find a customer to add" value={q} onChange={(e) => setQ(e.currentTarget.value)} />
        {found.data?.map((c) => (
          <Group key={c.id} justify="space-between">
            <Text size="sm">{c.email}</Text>
            <Button size="xs" variant="default" disabled={inList.has(c.id)} onClick={() => save.mutate([...list.customerIds, c.id])} aria-label={inList.has(c.id) ? `Member: ${c.email}` : `Add ${c.email} to ${list.name}`}>
              {inList.has(c.id) ? 'Member' : 'Add'}
            </Button>
          </Group>
        ))}
        {found.data?.length === 0 && <Text size="sm">No customer matches.</Text>}
        <FormError error={save.error} />
        {list.customerIds.length === 0 ? (
          <Text size="sm" data-testid="empty-state">
            No members yet: find a customer above.
          </Text>
        ) : (
          <div className="table-scroll">
            <Table aria-label={`Members of ${list.name}`}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Email</Table.Th>
                  <Table.Th>
                    <span className="visually-hidden">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {members.data?.map((c) => (
                  <Table.Tr key={c.id}>
                    <Table.Td>{c.email}</Table.Td>
                    <Table.Td>
                      <Button size="xs" variant="subtle" color="red" onClick={() => save.mutate(list.customerIds.filter((id) => id !== c.id))} aria-label={`Remove ${c.email} from ${list.name}`}>
                        Remove
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </Stack>
    </Card>
  );
}
