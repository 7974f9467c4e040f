import { Button, Group, NativeSelect, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';

type State = 'pending' | 'approved' | 'rejected';

/** The moderation queue: pending reviews first; approve or reject each. */
export function Reviews() {
  const [state, setState] = useState<State>('pending');
  const pager = useCursor();
  const queryClient = useQueryClient();
  const reviews = useQuery({
    queryKey: ['reviews', state, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/reviews', { params: { query: { limit: 20, state, ...(pager.cursor ? { cursor: pager.cursor } : {}) } } }))
  });
  const moderate = useMutation({
    mutationFn: async ({ reviewId, next }: { reviewId: string; next: State }) =>
      unwrap(await api.PATCH('/api/v1/admin/reviews/{reviewId}/moderation', { params: { path: { reviewId } }, body: { state: next } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['reviews'] })
  });
  return (
    <Stack>
      <Title order={1}>Reviews</Title>
      <NativeSelect
        label="Show"
        w={200}
        value={state}
        onChange={(e) => (setState(e.currentTarget.value as State), pager.reset())}
        data={[
          { value: 'pending', label: 'Waiting for moderation' },
          { value: 'approved', label: 'Approved' },
          { value: 'rejected', label: 'Rejected' }
        ]}
      />
      <FormError error={moderate.error} />
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Rating</Table.Th>
            <Table.Th>Review</Table.Th>
            <Table.Th>Author</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {reviews.data?.data.reviews.map((r) => (
            <Table.Tr key={r.id}>
              <Table.Td>{r.rating} / 5</Table.Td>
              <Table.Td>
                <Text fw={600}>{r.title}</Text>
                <Text size="sm">{r.body}</Text>
              </Table.Td>
              <Table.Td>{r.authorName}</Table.Td>
              <Table.Td>
                <Group gap="xs">
                  {r.state !== 'approved' && (
                    <Button size="xs" onClick={() => moderate.mutate({ reviewId: r.id, next: 'approved' })}>
                      Approve “{r.title}”
                    </Button>
                  )}
                  {r.state !== 'rejected' && (
                    <Button size="xs" variant="default" onClick={() => moderate.mutate({ reviewId: r.id, next: 'rejected' })}>
                      Reject “{r.title}”
                    </Button>
                  )}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {reviews.data?.data.reviews.length === 0 && <Text>Nothing here.</Text>}
      <Pager pager={pager} nextCursor={nextCursorOf(reviews.data?.meta)} />
    </Stack>
  );
}
