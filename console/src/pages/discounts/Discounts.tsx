import { Stack, Table, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { formatMoney } from '../../components/Money';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';
import { DiscountForm } from './DiscountForm';

export function Discounts() {
  const pager = useCursor();
  const discounts = useQuery({
    queryKey: ['discounts', pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/discounts', { params: { query: { limit: 20, ...(pager.cursor ? { cursor: pager.cursor } : {}) } } }))
  });
  return (
    <Stack>
      <Title order={1}>Discounts</Title>
      <DiscountForm />
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Code</Table.Th>
            <Table.Th>Discount</Table.Th>
            <Table.Th>Active</Table.Th>
            <Table.Th>Used</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {discounts.data?.data.discounts.map((d) => (
            <Table.Tr key={d.id}>
              <Table.Td>{d.code}</Table.Td>
              <Table.Td>{d.type === 'percentage' ? `${d.value}%` : d.type === 'fixed_amount' ? formatMoney(d.value) : 'Free shipping'}</Table.Td>
              <Table.Td>{d.isActive ? 'yes' : 'no'}</Table.Td>
              <Table.Td>
                {d.usageCount}
                {d.usageLimit ? ` of ${d.usageLimit}` : ''}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Pager pager={pager} nextCursor={nextCursorOf(discounts.data?.meta)} />
    </Stack>
  );
}
