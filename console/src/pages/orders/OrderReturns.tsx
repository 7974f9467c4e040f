import { Badge, Button, Checkbox, Group, NumberInput, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';

type Order = components['schemas']['Order'];

/** The order's returns (found through its timeline's return_requested events), each loaded from GET /admin/returns/{id}. */
function useReturns(orderId: string) {
  const timeline = useQuery({
    queryKey: ['timeline', orderId],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/orders/{orderId}/timeline', { params: { path: { orderId }, query: { limit: 50 } } })).data.events
  });
  const ids = (timeline.data ?? []).filter((event) => event.type === 'return_requested').map((event) => String(event.data.returnId));
  return useQueries({
    queries: ids.map((returnId) => ({
      queryKey: ['return', returnId],
      queryFn: async () => unwrap(await api.GET('/api/v1/admin/returns/{returnId}', { params: { path: { returnId } } })).data.return
    }))
  });
}

/** Returns on the order detail: request a return of fulfilled items; receive it (restock, and refund for owners/admins). */
export function OrderReturns({ order, canRefund }: { order: Order; canRefund: boolean }) {
  const returnable = order.items.filter((item) => item.fulfilledQuantity - item.returnedQuantity > 0);
  const [quantities, setQuantities] = useState<Record<string, number>>({});
  const [reason, setReason] = useState('');
  const [restock, setRestock] = useState(true);
  const [refund, setRefund] = useState(false);
  const queryClient = useQueryClient();
  const returns = useReturns(order.id);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['order', order.id] });
    void queryClient.invalidateQueries({ queryKey: ['timeline', order.id] });
    void queryClient.invalidateQueries({ queryKey: ['return'] });
  };
  const request = useMutation({
    mutationFn: async () => {
      const items = Object.entries(quantities)
        .filter(([, quantity]) => quantity > 0)
        .map(([orderItemId, quantity]) => ({ orderItemId, quantity }));
      return unwrap(await api.POST('/api/v1/admin/orders/{orderId}/returns', { params: { path: { orderId: order.id } }, body: { items, reason } })).data;
    },
    onSuccess: () => (setQuantities({}), setReason(''), refresh())
  });
  const receive = useMutation({
    mutationFn: async (returnId: string) =>
      unwrap(await api.POST('/api/v1/admin/returns/{returnId}/receive', { params: { path: { returnId } }, body: { restock, refund: canRefund && refund } })).data,
    onSuccess: refresh
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    request.mutate();
  };
  const title = (orderItemId: string) => order.items.find((item) => item.id === orderItemId)?.title ?? orderItemId;
  return (
    <section aria-labelledby="returns-title">
      <Stack>
        <Title order={2} size="h4" id="returns-title">
          Returns
        </Title>
        {returns.map(({ data: r }) =>
          r ? (
            <Stack key={r.id} gap="xs" data-testid="return">
              <Group>
                <Badge data-testid="return-status">{r.status}</Badge>
                <Text size="sm">
                  {r.items.map((line) => `${line.quantity} × ${title(line.orderItemId)}`).join(', ')} — {r.reason}
                  {r.restocked ? ' · restocked' : ''}
                  {r.refundId ? ' · refunded' : ''}
                </Text>
              </Group>
              {r.status === 'requested' && (
                <Group>
                  <Checkbox label="Put the items back in stock" checked={restock} onChange={(e) => setRestock(e.currentTarget.checked)} />
                  {canRefund && <Checkbox label="Refund the returned items" checked={refund} onChange={(e) => setRefund(e.currentTarget.checked)} />}
                  <Button size="xs" loading={receive.isPending} onClick={() => receive.mutate(r.id)}>
                    Receive return
                  </Button>
                </Group>
              )}
            </Stack>
          ) : null
        )}
        <FormError error={receive.error} />
        {returnable.length > 0 && (
          <form onSubmit={submit} aria-label="Request a return">
            <Stack gap="xs">
              <Table>
                <Table.Tbody>
                  {returnable.map((item) => (
                    <Table.Tr key={item.id}>
                      <Table.Td>
                        <NumberInput
                          label={`Return quantity of ${item.title}`}
                          min={0}
                          max={item.fulfilledQuantity - item.returnedQuantity}
                          value={quantities[item.id] ?? 0}
                          onChange={(value) => setQuantities((q) => ({ ...q, [item.id]: Number(value) || 0 }))}
                        />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
              <TextInput label="Return reason" required value={reason} onChange={(e) => setReason(e.currentTarget.value)} error={fieldError(request.error, 'reason')} />
              <Button type="submit" loading={request.isPending} w="fit-content">
                Request return
              </Button>
              <FormError error={request.error} fields={['reason']} />
            </Stack>
          </form>
        )}
      </Stack>
    </section>
  );
}
