import { Paper, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { human } from '../../components/labels';
import { formatMoney } from '../../components/Money';

/** Statuses under which Stripe refuses refunds of the charge (the API answers 409 payment_disputed). */
const REFUSING = new Set(['needs_response', 'under_review']);

/**
 * The disputes of a Stripe order's payments, as Stripe last reported them: what is disputed, why,
 * where it stands, and by when to answer (evidence is given in Stripe's dashboard).
 */
export function OrderDisputes({ orderId }: { orderId: string }) {
  const disputes = useQuery({
    queryKey: ['disputes', orderId],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/orders/{orderId}/disputes', { params: { path: { orderId } } })).data.disputes
  });
  if (!disputes.data?.length) return null;
  return (
    <Stack gap={4} mt="xs" data-testid="disputes">
      {disputes.data.map((d) => (
        <Paper key={d.id} withBorder p="xs" data-testid="dispute">
          <Text size="sm" fw={600}>
            Disputed {formatMoney(d.amount, d.currency)}: {human(d.status).toLowerCase()}
          </Text>
          <Text size="sm">
            Reason: {human(d.reason).toLowerCase()}
            {d.evidenceDueBy && !d.closedAt && ` · answer in Stripe's dashboard by ${new Date(d.evidenceDueBy).toLocaleString()}`}
            {REFUSING.has(d.status) && ' · refunds are refused until the dispute closes'}
            {d.status === 'lost' && ' · the bank kept this amount: it is no longer refundable'}
          </Text>
        </Paper>
      ))}
    </Stack>
  );
}
