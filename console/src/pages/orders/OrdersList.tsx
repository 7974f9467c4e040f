import { Anchor, Group, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { formatMoney } from '../../components/Money';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';
import { human } from '../../components/labels';
import { ListState } from '../../components/ListState';
import { SortHeader, sortLabel } from '../../components/SortHeader';

const SORTS = { createdAt: 'date placed', number: 'order number', total: 'total' };

type Status = 'open' | 'completed' | 'cancelled';
type Fulfilment = 'unfulfilled' | 'partially_fulfilled' | 'fulfilled';

export function OrdersList() {
  const [q, setQ] = useState('');
  const [search] = useDebouncedValue(q, 250);
  const [status, setStatus] = useState<Status | ''>('');
  // ?fulfillment=unfulfilled: the home page's "orders to fulfil" link opens the list filtered.
  const [params] = useSearchParams();
  const [fulfillment, setFulfillment] = useState<Fulfilment | ''>((params.get('fulfillment') as Fulfilment | null) ?? '');
  const [sort, setSort] = useState('-createdAt');
  const pager = useCursor();
  const onSort = (next: string) => (setSort(next), pager.reset());
  const orders = useQuery({
    queryKey: ['orders', search, status, fulfillment, sort, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const query = {
        limit: 20,
        sort: sort as never,
        ...(search ? { q: search } : {}),
        ...(status ? { status } : {}),
        ...(fulfillment ? { fulfillmentStatus: fulfillment } : {}),
        ...(pager.cursor ? { cursor: pager.cursor } : {})
      };
      return unwrap(await api.GET('/api/v1/admin/orders', { params: { query } }));
    }
  });
  return (
    <Stack>
      <Title order={1}>Orders</Title>
      <Group>
        <TextInput label="Search by number or email" value={q} onChange={(e) => (setQ(e.currentTarget.value), pager.reset())} />
        <NativeSelect
          label="Status"
          value={status}
          onChange={(e) => (setStatus(e.currentTarget.value as Status | ''), pager.reset())}
          data={[
            { value: '', label: 'Any' },
            { value: 'open', label: 'Open' },
            { value: 'completed', label: 'Completed' },
            { value: 'cancelled', label: 'Cancelled' }
          ]}
        />
        <NativeSelect
          label="Fulfilment"
          value={fulfillment}
          onChange={(e) => (setFulfillment(e.currentTarget.value as Fulfilment | ''), pager.reset())}
          data={[
            { value: '', label: 'Any' },
            { value: 'unfulfilled', label: 'Unfulfilled' },
            { value: 'partially_fulfilled', label: 'Partially fulfilled' },
            { value: 'fulfilled', label: 'Fulfilled' }
          ]}
        />
      </Group>
      <Text size="sm" data-testid="sort-order">
        {sortLabel(sort, SORTS)}
      </Text>
      <div className="table-scroll">
      <Table striped aria-label="Orders">
        <Table.Thead>
          <Table.Tr>
            <SortHeader label="Order" field="number" sort={sort} onSort={onSort} />
            <SortHeader label="Date" field="createdAt" sort={sort} onSort={onSort} />
            <Table.Th>Customer</Table.Th>
            <Table.Th>Payment</Table.Th>
            <Table.Th>Fulfilment</Table.Th>
            <SortHeader label="Total" field="total" sort={sort} onSort={onSort} />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {orders.data?.data.orders.map((order) => (
            <Table.Tr key={order.id}>
              <Table.Td>
                <Anchor component={Link} to={`/orders/${order.id}`}>
                  #{order.number}
                </Anchor>
              </Table.Td>
              <Table.Td>{new Date(order.createdAt).toLocaleString()}</Table.Td>
              <Table.Td>{order.email}</Table.Td>
              <Table.Td>{human(order.paymentStatus)}</Table.Td>
              <Table.Td>{human(order.fulfillmentStatus)}</Table.Td>
              <Table.Td>{formatMoney(order.total, order.currency)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      </div>
      <ListState
        query={orders}
        count={orders.data?.data.orders.length}
        empty={q || status || fulfillment ? 'No order matches these filters.' : 'No orders yet: they appear here when shoppers check out.'}
        label="orders"
      />
      <Pager pager={pager} nextCursor={nextCursorOf(orders.data?.meta)} />
    </Stack>
  );
}
