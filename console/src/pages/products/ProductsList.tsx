import { Anchor, Button, Group, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { formatMoney } from '../../components/Money';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';
import { human } from '../../components/labels';
import { ListState } from '../../components/ListState';
import { SortHeader, sortLabel } from '../../components/SortHeader';

const SORTS = { createdAt: 'date added', title: 'title', price: 'price' };

type Status = 'draft' | 'active' | 'archived';

export function ProductsList() {
  const [q, setQ] = useState('');
  const [search] = useDebouncedValue(q, 250);
  const [status, setStatus] = useState<Status | ''>('');
  const [sort, setSort] = useState('-createdAt');
  const pager = useCursor();
  const onSort = (next: string) => (setSort(next), pager.reset());
  const products = useQuery({
    queryKey: ['products', search, status, sort, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const query = { limit: 20, sort: sort as never, ...(search ? { q: search } : {}), ...(status ? { status } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) };
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
      <Text size="sm" data-testid="sort-order">
        {sortLabel(sort, SORTS)}
      </Text>
      <div className="table-scroll">
      <Table striped aria-label="Products">
        <Table.Thead>
          <Table.Tr>
            <SortHeader label="Product" field="title" sort={sort} onSort={onSort} />
            <Table.Th>Status</Table.Th>
            <Table.Th>Variants</Table.Th>
            <Table.Th>Stock</Table.Th>
            <SortHeader label="Price" field="price" sort={sort} onSort={onSort} />
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
              <Table.Td>{human(p.status)}</Table.Td>
              <Table.Td>{p.variants.length}</Table.Td>
              <Table.Td>{p.totalInventory}</Table.Td>
              <Table.Td>{p.minPrice === p.maxPrice ? formatMoney(p.minPrice) : `${formatMoney(p.minPrice)} – ${formatMoney(p.maxPrice)}`}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      </div>
      <ListState
        query={products}
        count={products.data?.data.products.length}
        empty={q || status ? 'No product matches these filters.' : 'No products yet.'}
        action={
          q || status ? undefined : (
            <Button component={Link} to="/products/new" variant="default" size="xs">
              Add your first product
            </Button>
          )
        }
        label="products"
      />
      <Pager pager={pager} nextCursor={nextCursorOf(products.data?.meta)} />
    </Stack>
  );
}
