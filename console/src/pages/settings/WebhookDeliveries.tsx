import { Button, Code, Stack, Table, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';

const when = (at: string | null) => (at ? new Date(at).toLocaleString() : '—');

/** One webhook's delivery log, newest first (cursor pages), refreshed every 2 s while open; redeliver any delivery. */
export function WebhookDeliveries({ webhookId, url }: { webhookId: string; url: string }) {
  const pager = useCursor();
  const cursor = pager.cursor;
  const queryClient = useQueryClient();
  const deliveries = useQuery({
    queryKey: ['webhook-deliveries', webhookId, cursor],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/webhooks/{webhookId}/deliveries', { params: { path: { webhookId }, query: { limit: 20, ...(cursor ? { cursor } : {}) } } })),
    refetchInterval: 2000
  });
  const redeliver = useMutation({
    mutationFn: async (deliveryId: string) =>
      unwrap(await api.POST('/api/v1/admin/store/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', { params: { path: { webhookId, deliveryId } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', webhookId] })
  });
  const list = deliveries.data?.data.deliveries ?? [];
  return (
    <Stack>
      <Title order={2}>Deliveries to {url}</Title>
      <FormError error={deliveries.error ?? redeliver.error} />
      <Table striped aria-label="Delivery log">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Event</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Attempts</Table.Th>
            <Table.Th>Status code</Table.Th>
            <Table.Th>Duration</Table.Th>
            <Table.Th>Next retry</Table.Th>
            <Table.Th>Response</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((delivery) => (
            <Table.Tr key={delivery.id} data-testid="webhook-delivery">
              <Table.Td>
                {delivery.topic}
                <br />
                <Code>{delivery.eventId}</Code>
              </Table.Td>
              <Table.Td>{delivery.status}</Table.Td>
              <Table.Td>{delivery.attempts}</Table.Td>
              <Table.Td>{delivery.lastStatusCode ?? '—'}</Table.Td>
              <Table.Td>{delivery.lastDurationMs === null ? '—' : `${delivery.lastDurationMs} ms`}</Table.Td>
              <Table.Td>{when(delivery.nextRetryAt)}</Table.Td>
              <Table.Td>
                <Code>{(delivery.responseBody || delivery.lastError || '').slice(0, 200)}</Code>
              </Table.Td>
              <Table.Td>
                <Button size="xs" variant="default" onClick={() => redeliver.mutate(delivery.id)} aria-label={`Redeliver ${delivery.topic} ${delivery.id}`}>
                  Redeliver
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {!list.length && !deliveries.isLoading && <p>No deliveries yet.</p>}
      <Pager pager={pager} nextCursor={nextCursorOf(deliveries.data?.meta)} />
    </Stack>
  );
}
