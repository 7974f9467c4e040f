import { Anchor, Button, Checkbox, Group, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { formatMoney } from '../../components/Money';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';
import { human } from '../../components/labels';
import { ListState } from '../../components/ListState';
import { SortHeader, sortLabel } from '../../components/SortHeader';
import { BulkActions } from './BulkActions';

const SORTS = { createdAt: 'date added', title: 'title', price: 'price' };

type Status = 'draft' | 'active' | 'archived';

export function ProductsList() {
  const [q, setQ] = useState('');
  const [search] = useDebouncedValue(q, 250);
  const [status, setStatus] = useState<Status | ''>('');
  const [sort, setSort] = useState('-createdAt');
  const pager = useCursor();
  // The rows ticked for a bulk action (ids; kept across pages, cleared once the action is done).
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const clearSelection = useCallback(() => setSelected(new Set()), []);
  // Once rows were ticked the bulk bar stays, so the result of deleting the last rows is still read.
  const [bulkUsed, setBulkUsed] = useState(false);
  const onSort = (next: string) => (setSort(next), pager.reset());
  // A new search or filter starts a new selection: a bulk action never reaches rows no longer shown.
  const refilter = () => (pager.reset(), clearSelection());
  const products = useQuery({
    queryKey: ['products', search, status, sort, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const query = { limit: 20, sort: sort as never, ...(search ? { q: search } : {}), ...(status ? { status } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) };
      return unwrap(await api.GET('/api/v1/admin/products', { params: { query } }));
    }
  });
  const rows = products.data?.data.products ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Products</Title>
        <Group gap="xs">
          <Button component={Link} to="/products/transfer" variant="default">
            Import or export
          </Button>
          <Button component={Link} to="/products/new">
            Add product
          </Button>
        </Group>
      </Group>
      <Group>
        <TextInput label="Search products" value={q} onChange={(e) => (setQ(e.currentTarget.value), refilter())} />
        <NativeSelect
          label="Status"
          value={status}
          onChange={(e) => (setStatus(e.currentTarget.value as Status | ''), refilter())}
          data={[
            { value: '', label: 'Any' },
            { value: 'draft', label: 'Draft' },
            { value: 'active', label: 'Active' },
            { value: 'archived', label: 'Archived' }
          ]}
        />
      </Group>
      {(rows.length > 0 || bulkUsed) && <BulkActions ids={[...selected]} titles={new Map(rows.map((p) => [p.id, p.title]))} onDone={clearSelection} />}
      <Text size="sm" data-testid="sort-order">
        {sortLabel(sort, SORTS)}
      </Text>
      <div className="table-scroll">
      <Table striped aria-label="Products">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>
              <Checkbox
                aria-label="Select every product on this page"
                checked={rows.length > 0 && rows.every((p) => selected.has(p.id))}
                indeterminate={rows.some((p) => selected.has(p.id)) && !rows.every((p) => selected.has(p.id))}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  setBulkUsed(true);
                  setSelected((old) => {
                    const next = new Set(old);
                    for (const p of rows) on ? next.add(p.id) : next.delete(p.id);
                    return next;
                  });
                }}
              />
            </Table.Th>
            <SortHeader label="Product" field="title" sort={sort} onSort={onSort} />
            <Table.Th>Status</Table.Th>
            <Table.Th>Variants</Table.Th>
            <Table.Th>Stock</Table.Th>
            <SortHeader label="Price" field="price" sort={sort} onSort={onSort} />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((p) => (
            <Table.Tr key={p.id}>
              <Table.Td>
                <Checkbox
                  aria-label={`Select ${p.title}`}
                  checked={selected.has(p.id)}
                  onChange={(e) => {
                    const on = e.currentTarget.checked;
                    setBulkUsed(true);
                    setSelected((old) => {
                      const next = new Set(old);
                      on ? next.add(p.id) : next.delete(p.id);
                      return next;
                    });
                  }}
                />
              </Table.Td>
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
