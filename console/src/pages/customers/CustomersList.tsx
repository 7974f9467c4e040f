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
import { NewCustomer } from './NewCustomer';
import { ListState } from '../../components/ListState';
import { SortHeader, sortLabel } from '../../components/SortHeader';
import { human } from '../../components/labels';

const SORTS = { createdAt: 'date added', email: 'email', name: 'name', totalSpent: 'amount spent' };

type Marketing = 'subscribed' | 'unsubscribed' | 'not_subscribed';

export function CustomersList() {
  const me = useMe();
  const [q, setQ] = useState('');
  const [search] = useDebouncedValue(q, 250);
  const [marketing, setMarketing] = useState<Marketing | ''>('');
  const [sort, setSort] = useState('-createdAt');
  const pager = useCursor();
  const onSort = (next: string) => (setSort(next), pager.reset());
  const customers = useQuery({
    queryKey: ['customers', search, marketing, sort, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const query = { limit: 20, sort: sort as never, ...(search ? { q: search } : {}), ...(marketing ? { emailMarketing: marketing } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) };
      return unwrap(await api.GET('/api/v1/admin/customers', { params: { query } }));
    }
  });
  return (
    <Stack>
      <Title order={1}>Customers</Title>
      <NewCustomer />
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
      <Text size="sm" data-testid="sort-order">
        {sortLabel(sort, SORTS)}
      </Text>
      <div className="table-scroll">
      <Table striped aria-label="Customers">
        <Table.Thead>
          <Table.Tr>
            <SortHeader label="Email" field="email" sort={sort} onSort={onSort} />
            <SortHeader label="Name" field="name" sort={sort} onSort={onSort} />
            <Table.Th>Marketing</Table.Th>
            <Table.Th>Orders</Table.Th>
            <SortHeader label="Spent" field="totalSpent" sort={sort} onSort={onSort} />
            <SortHeader label="Added" field="createdAt" sort={sort} onSort={onSort} />
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
              <Table.Td>{human(c.emailMarketing)}</Table.Td>
              <Table.Td>{c.ordersCount}</Table.Td>
              <Table.Td>{formatMoney(c.totalSpent)}</Table.Td>
              <Table.Td>{new Date(c.createdAt).toLocaleDateString()}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      </div>
      <ListState
        query={customers}
        count={customers.data?.data.customers.length}
        empty={search || marketing ? 'No customer matches these filters.' : 'No customers yet: create one above or import a CSV.'}
        label="customers"
      />
      <Pager pager={pager} nextCursor={nextCursorOf(customers.data?.meta)} />
    </Stack>
  );
}
