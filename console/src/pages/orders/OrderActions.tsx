import { Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';
import { formatMoney } from '../../components/Money';

type Order = components['schemas']['Order'];

/** Mark paid (manual payments), refund everything left with a preview first, cancel. Owner and admin. */
export function OrderActions({ order }: { order: Order }) {
  const orderId = order.id;
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const done = (next: Order) => {
    queryClient.setQueryData(['order', orderId], next);
    void queryClient.invalidateQueries({ queryKey: ['timeline', orderId] });
  };
  const markPaid = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/orders/{orderId}/mark-paid', { params: { path: { orderId } }, body: {} })).data.order,
    onSuccess: done
  });
  const refundBody = () => ({ reason, items: order.items.filter((i) => i.quantity > i.refundedQuantity).map((i) => ({ orderItemId: i.id, quantity: i.quantity - i.refundedQuantity })) });
  const preview = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/admin/orders/{orderId}/refunds', { params: { path: { orderId }, query: { dryRun: true } }, body: refundBody() })).data as { preview: components['schemas']['RefundPreview'] }
  });
  const refund = useMutation({
    mutationFn: async () => (unwrap(await api.POST('/api/v1/admin/orders/{orderId}/refunds', { params: { path: { orderId } }, body: refundBody() })).data as { order: Order }).order,
    onSuccess: (next) => (done(next), preview.reset())
  });
  const cancel = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/orders/{orderId}/cancel', { params: { path: { orderId } }, body: { reason } })).data.order,
    onSuccess: done
  });
  const error = markPaid.error ?? preview.error ?? refund.error ?? cancel.error;
  return (
    <Card withBorder component="section" aria-labelledby="actions-title">
      <Stack>
        <Title order={2} size="h4" id="actions-title">
          Payment and cancellation
        </Title>
        {order.paymentProvider === 'manual' && order.paymentStatus === 'pending' && (
          <Button variant="default" onClick={() => markPaid.mutate()} loading={markPaid.isPending}>
            Mark as paid
          </Button>
        )}
        <TextInput label="Reason (for a refund or cancellation)" value={reason} onChange={(e) => setReason(e.currentTarget.value)} error={fieldError(error, 'reason')} />
        <Group>
          <Button variant="default" disabled={!reason} onClick={() => preview.mutate()} loading={preview.isPending}>
            Preview refund
          </Button>
          <Button variant="default" color="red" disabled={!reason || order.status === 'cancelled'} onClick={() => cancel.mutate()} loading={cancel.isPending}>
            Cancel order
          </Button>
        </Group>
        {preview.data && (
          <Stack gap="xs">
            <Text role="status">
              Refund {formatMoney(preview.data.preview.amount, order.currency)} of {formatMoney(preview.data.preview.refundable, order.currency)} refundable
            </Text>
            <Button color="red" onClick={() => refund.mutate()} loading={refund.isPending}>
              Refund {formatMoney(preview.data.preview.amount, order.currency)}
            </Button>
          </Stack>
        )}
        <FormError error={error} fields={['reason']} />
      </Stack>
    </Card>
  );
}
