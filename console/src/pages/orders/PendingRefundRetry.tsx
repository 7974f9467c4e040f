import { Button, Group, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';

type Refund = components['schemas']['Refund'];

/**
 * A refund Stripe left pending (a later part refused after earlier ones were paid back, or no
 * answer from Stripe): asks Stripe again for the parts not yet accepted. Owner and admin.
 */
export function PendingRefundRetry({ orderId, refund }: { orderId: string; refund: Refund }) {
  const queryClient = useQueryClient();
  const retry = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/admin/orders/{orderId}/refunds/{refundId}/retry', { params: { path: { orderId, refundId: refund.id } } })).data.order,
    onSuccess: (order) => {
      queryClient.setQueryData(['order', orderId], order);
      void queryClient.invalidateQueries({ queryKey: ['timeline', orderId] });
      void queryClient.invalidateQueries({ queryKey: ['orders'] });
    },
    // Refused again: the refund is still pending, and the timeline has the new refund_failed.
    onError: () => void queryClient.invalidateQueries({ queryKey: ['timeline', orderId] })
  });
  const paidBack = refund.payments.filter((part) => part.stripeRefundId).length;
  return (
    <Group gap="xs" data-testid="pending-refund">
      <Text size="sm">
        Waiting on Stripe{refund.payments.length > 1 ? ` (${paidBack} of ${refund.payments.length} payments paid back)` : ''}.
      </Text>
      <Button size="compact-sm" variant="default" onClick={() => retry.mutate()} loading={retry.isPending}>
        Ask Stripe again
      </Button>
      <FormError error={retry.error} fields={[]} />
    </Group>
  );
}
