import { Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';
import { formatMoney } from '../../components/Money';

type Order = components['schemas']['Order'];
type Balance = components['schemas']['OrderBalanceInvoice'];

const stateOf = (b: Balance) =>
  b.status === 'open' ? 'waiting for the customer' : b.status === 'void' ? 'voided' : b.paymentIntentId ? 'paid through the link' : 'paid by hand';

/** What a balance still asks: its amount less what later edits took back of it. */
const owedOf = (b: Balance) => b.amount - b.takenBack;

function BalanceLine({ order, balance }: { order: Order; balance: Balance }) {
  const orderId = order.id;
  const queryClient = useQueryClient();
  const [marking, setMarking] = useState(false);
  const [reference, setReference] = useState('');
  const done = (next: Order) => {
    queryClient.setQueryData(['order', orderId], next);
    void queryClient.invalidateQueries({ queryKey: ['balances', orderId] });
    void queryClient.invalidateQueries({ queryKey: ['timeline', orderId] });
    void queryClient.invalidateQueries({ queryKey: ['orders'] });
  };
  const path = { orderId, invoiceId: balance.id };
  const voidLink = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/orders/{orderId}/balance-invoices/{invoiceId}/void', { params: { path } })).data.order,
    onSuccess: done
  });
  const markPaid = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/orders/{orderId}/balance-invoices/{invoiceId}/mark-paid', { params: { path }, body: { reference } })).data.order,
    onSuccess: (next) => (done(next), setMarking(false))
  });
  const owed = owedOf(balance);
  const canMark = balance.status !== 'paid' && owed > 0 && order.status !== 'cancelled';
  return (
    <Stack gap={4} data-testid="balance">
      <Text size="sm">
        {formatMoney(balance.amount, balance.currency)} · {stateOf(balance)}
        {balance.takenBack > 0 && ` · ${formatMoney(balance.takenBack, balance.currency)} taken back by a later edit`} · asked {new Date(balance.createdAt).toLocaleDateString()}
      </Text>
      {(balance.status === 'open' || canMark) && !marking && (
        <Group gap="xs">
          {balance.status === 'open' && (
            <Button size="xs" variant="default" onClick={() => voidLink.mutate()} loading={voidLink.isPending}>
              Void link
            </Button>
          )}
          {canMark && (
            <Button size="xs" variant="default" onClick={() => setMarking(true)}>
              Mark as paid
            </Button>
          )}
        </Group>
      )}
      {marking && (
        <Stack gap="xs">
          <TextInput
            size="xs"
            label="How it was paid (reference)"
            placeholder="Cash at the counter"
            value={reference}
            onChange={(e) => setReference(e.currentTarget.value)}
            error={fieldError(markPaid.error, 'reference')}
          />
          <Text size="sm" role="status">
            Record {formatMoney(owed, balance.currency)} as collected? It becomes refundable, by hand; a payment through the link after this is refunded.
          </Text>
          <Group gap="xs">
            <Button size="xs" onClick={() => markPaid.mutate()} loading={markPaid.isPending}>
              Record payment
            </Button>
            <Button size="xs" variant="default" onClick={() => setMarking(false)}>
              Keep it open
            </Button>
          </Group>
        </Stack>
      )}
      <FormError error={voidLink.error ?? markPaid.error} fields={['reference']} />
    </Stack>
  );
}

/**
 * The order's balance payment links (edits that raised a paid order's total, collect: invoice):
 * void an open one, or record one as paid another way (cash, a transfer), open or voided.
 */
export function OrderBalances({ order }: { order: Order }) {
  const balances = useQuery({
    queryKey: ['balances', order.id],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/orders/{orderId}/balance-invoices', { params: { path: { orderId: order.id } } })).data.invoices
  });
  if (!balances.data?.length) return null;
  return (
    <Card withBorder component="section" aria-labelledby="balances-title">
      <Stack gap="xs">
        <Title order={2} size="h4" id="balances-title">
          Balance links
        </Title>
        {balances.data.map((balance) => (
          <BalanceLine key={balance.id} order={order} balance={balance} />
        ))}
      </Stack>
    </Card>
  );
}
