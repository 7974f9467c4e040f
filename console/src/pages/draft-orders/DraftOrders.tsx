import { Anchor, Button, Group, NativeSelect, Stack, Table, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { human } from '../../components/labels';
import { ListState } from '../../components/ListState';
import { formatMoney } from '../../components/Money';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';

type Status = 'open' | 'invoiced' | 'completed';

/** Orders made by hand (phone, email, fairs), newest first; the API filters them by status only. */
export function DraftOrders() {
  const [status, setStatus] = useState<Status | ''>('');
  const pager = useCursor();
  const drafts = useQuery({
    queryKey: ['draft-orders', status, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const query = { limit: 20, ...(status ? { status } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) };
      return unwrap(await api.GET('/api/v1/admin/draft-orders', { params: { query } }));
    }
  });
  const rows = drafts.data?.data.draftOrders;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Draft orders</Title>
        <Button component={Link} to="/draft-orders/new">
          New draft order
        </Button>
      </Group>
      <NativeSelect
        label="Status"
        w={200}
        value={status}
        onChange={(e) => (setStatus(e.currentTarget.value as Status | ''), pager.reset())}
        data={[
          { value: '', label: 'Any' },
          { value: 'open', label: 'Open' },
          { value: 'invoiced', label: 'Invoiced' },
          { value: 'completed', label: 'Completed' }
        ]}
      />
      <div className="table-scroll">
        <Table striped aria-label="Draft orders">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Customer</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Lines</Table.Th>
              <Table.Th>Total</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows?.map((draft) => (
              <Table.Tr key={draft.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/draft-orders/${draft.id}`}>
                    {draft.email ?? 'No email'}
                  </Anchor>
                </Table.Td>
                <Table.Td>{new Date(draft.createdAt).toLocaleString()}</Table.Td>
                <Table.Td>{human(draft.status)}</Table.Td>
                <Table.Td>{draft.lines.reduce((n, line) => n + line.quantity, 0)}</Table.Td>
                <Table.Td>{formatMoney(draft.total, draft.currency)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <ListState
        query={drafts}
        count={rows?.length}
        label="draft orders"
        empty={status ? `No ${status} draft order.` : 'No draft orders yet: make one for an order taken by phone or email.'}
        action={
          !status ? (
            <Button component={Link} to="/draft-orders/new" variant="default" size="xs">
              New draft order
            </Button>
          ) : undefined
        }
      />
      <Pager pager={pager} nextCursor={nextCursorOf(drafts.data?.meta)} />
    </Stack>
  );
}
