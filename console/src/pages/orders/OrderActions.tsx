import { Button, Card, Checkbox, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';

type Order = components['schemas']['Order'];

/**
 * Mark paid (a manual payment still pending) and cancel (only while nothing is fulfilled: a fulfilled
 * order takes its items back with a return), each confirmed first. Owner and admin.
 */
export function OrderActions({ order, canCancel }: { order: Order; canCancel: boolean }) {
  const orderId = order.id;
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const [restock, setRestock] = useState(true);
  const [confirming, setConfirming] = useState(false);
  const done = (next: Order) => {
    queryClient.setQueryData(['order', orderId], next);
    void queryClient.invalidateQueries({ queryKey: ['timeline', orderId] });
    void queryClient.invalidateQueries({ queryKey: ['orders'] });
  };
  const markPaid = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/orders/{orderId}/mark-paid', { params: { path: { orderId } }, body: {} })).data.order,
    onSuccess: done
  });
  const cancel = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/orders/{orderId}/cancel', { params: { path: { orderId } }, body: { reason, restock } })).data.order,
    onSuccess: (next) => (done(next), setConfirming(false))
  });
  const canMarkPaid = order.paymentProvider === 'manual' && order.paymentStatus === 'pending' && order.status !== 'cancelled';
  if (!canMarkPaid && !canCancel) return null;
  const error = markPaid.error ?? cancel.error;
  return (
    <Card withBorder component="section" aria-labelledby="actions-title">
      <Stack>
        <Title order={2} size="h4" id="actions-title">
          {canCancel ? 'Payment and cancellation' : 'Payment'}
        </Title>
        {canMarkPaid && (
          <Button variant="default" onClick={() => markPaid.mutate()} loading={markPaid.isPending}>
            Mark as paid
          </Button>
        )}
        {canCancel && (
          <>
            <TextInput label="Cancellation reason" value={reason} onChange={(e) => setReason(e.currentTarget.value)} error={fieldError(error, 'reason')} />
            <Checkbox label="Put the items back in stock" checked={restock} onChange={(e) => setRestock(e.currentTarget.checked)} />
            {!confirming ? (
              <Button variant="default" color="red" w="fit-content" disabled={!reason} onClick={() => setConfirming(true)}>
                Cancel order
              </Button>
            ) : (
              <Stack gap="xs">
                <Text role="status">Cancel order #{order.number}? What was paid is refunded and the customer is emailed.</Text>
                <Group>
                  <Button color="red" onClick={() => cancel.mutate()} loading={cancel.isPending}>
                    Yes, cancel the order
                  </Button>
                  <Button variant="default" onClick={() => setConfirming(false)}>
                    Keep the order
                  </Button>
                </Group>
              </Stack>
            )}
          </>
        )}
        <FormError error={error} fields={['reason']} />
      </Stack>
    </Card>
  );
}
