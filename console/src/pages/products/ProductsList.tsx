import { Anchor, Button, Group, NativeSelect, Stack, Table, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { formatMoney } from '../../components/Money';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';

type Status = 'draft' | 'active' | 'archived';

export function ProductsList() {
  const [q, setQ] = useState('');
  const [search] = useDebouncedValue(q, 250);
  const [status, setStatus] = useState<Status | ''>('');
  const pager = useCursor();
  const products = useQuery({
    queryKey: ['products', search, status, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const query = { limit: 20, ...(search ? { q: search } : {}), ...(status ? { status } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) };
      return unwrap(await api.GET('/api/v1/admin/products', { params: { query } }));
    }
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Products</Title>
        <Button component={Link} to="/products/new">
          Add product
        </Button>
      </Group>
      <Group>
        <TextInput label="Search products" value={q} onChange={(e) => (setQ(e.currentTarget.value), pager.reset())} />
        <NativeSelect
          label="Status"
          value={status}
          onChange={(e) => (setStatus(e.currentTarget.value as Status | ''), pager.reset())}
          data={[
            { value: '', label: 'Any' },
            { value: 'draft', label: 'Draft' },
            { value: 'active', label: 'Active' },
            { value: 'archived', label: 'Archived' }
          ]}
        />
      </Group>
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Product</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Variants</Table.Th>
            <Table.Th>Stock</Table.Th>
            <Table.Th>Price</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {products.data?.data.products.map((p) => (
            <Table.Tr key={p.id}>
              <Table.Td>
                <Anchor component={Link} to={`/products/${p.id}`}>
                  {p.title}
                </Anchor>
              </Table.Td>
              <Table.Td>{p.status}</Table.Td>
              <Table.Td>{p.variants.length}</Table.Td>
              <Table.Td>{p.totalInventory}</Table.Td>
              <Table.Td>{p.minPrice === p.maxPrice ? formatMoney(p.minPrice) : `${formatMoney(p.minPrice)} – ${formatMoney(p.maxPrice)}`}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Pager pager={pager} nextCursor={nextCursorOf(products.data?.meta)} />
    </Stack>
  );
}
