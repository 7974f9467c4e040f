import { Anchor, Group, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { useMe } from '../../api/me';
import { formatMoney } from '../../components/Money';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';
import { canImport } from '../../layout/menu';
import { CustomerExport } from './CustomerExport';
import { CustomerImport } from './CustomerImport';

type Marketing = 'subscribed' | 'unsubscribed' | 'not_subscribed';

export function CustomersList() {
  const me = useMe();
  const [q, setQ] = useState('');
  const [search] = useDebouncedValue(q, 250);
  const [marketing, setMarketing] = useState<Marketing | ''>('');
  const pager = useCursor();
  const customers = useQuery({
    queryKey: ['customers', search, marketing, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const query = { limit: 20, ...(search ? { q: search } : {}), ...(marketing ? { emailMarketing: marketing } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) };
      return unwrap(await api.GET('/api/v1/admin/customers', { params: { query } }));
    }
  });
  return (
    <Stack>
      <Title order={1}>Customers</Title>
      {me.data && canImport(me.data.role) && (
        <Group align="flex-start" grow>
          <CustomerImport />
          <CustomerExport />
        </Group>
      )}
      <Group>
        <TextInput label="Search customers" value={q} onChange={(e) => (setQ(e.currentTarget.value), pager.reset())} />
        <NativeSelect
          label="Email marketing"
          value={marketing}
          onChange={(e) => (setMarketing(e.currentTarget.value as Marketing | ''), pager.reset())}
          data={[
            { value: '', label: 'Any' },
            { value: 'subscribed', label: 'Subscribed' },
            { value: 'unsubscribed', label: 'Unsubscribed' },
            { value: 'not_subscribed', label: 'Not subscribed' }
          ]}
        />
      </Group>
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Email</Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Marketing</Table.Th>
            <Table.Th>Orders</Table.Th>
            <Table.Th>Spent</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {customers.data?.data.customers.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td>
                <Anchor component={Link} to={`/customers/${c.id}`}>
                  {c.email}
                </Anchor>
              </Table.Td>
              <Table.Td>{[c.firstName, c.lastName].filter(Boolean).join(' ')}</Table.Td>
              <Table.Td>{c.emailMarketing}</Table.Td>
              <Table.Td>{c.ordersCount}</Table.Td>
              <Table.Td>{formatMoney(c.totalSpent)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {customers.data?.data.customers.length === 0 && <Text>No customers yet.</Text>}
      <Pager pager={pager} nextCursor={nextCursorOf(customers.data?.meta)} />
    </Stack>
  );
}
