import { Badge, Grid, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router-dom';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { useMe } from '../../api/me';
import { formatMoney } from '../../components/Money';
import { FulfilForm } from './FulfilForm';
import { OrderActions } from './OrderActions';
import { OrderReturns } from './OrderReturns';
import { OrderTimeline } from './OrderTimeline';

export function OrderDetail() {
  const orderId = useParams().orderId!;
  const me = useMe();
  const order = useQuery({
    queryKey: ['order', orderId],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/orders/{orderId}', { params: { path: { orderId } } })).data.order
  });
  if (!order.data) return <Text>{order.error ? order.error.message : 'Loading…'}</Text>;
  const o = order.data;
  const money = (amount: number) => formatMoney(amount, o.currency);
  return (
    <Stack>
      <Group>
        <Title order={1}>Order #{o.number}</Title>
        <Badge>{o.status}</Badge>
        <Badge color="grape.9" data-testid="payment-status">
          {o.paymentStatus}
        </Badge>
        <Badge color="teal.9" data-testid="fulfillment-status">
          {o.fulfillmentStatus}
        </Badge>
      </Group>
      <Text>
        {o.email} · placed {new Date(o.createdAt).toLocaleString()} · paid by {o.paymentProvider}
      </Text>
      <Grid>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack>
            <Table aria-label="Items">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Item</Table.Th>
                  <Table.Th>Quantity</Table.Th>
                  <Table.Th>Fulfilled</Table.Th>
                  <Table.Th>Total</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {o.items.map((item) => (
                  <Table.Tr key={item.id}>
                    <Table.Td>{item.title}</Table.Td>
                    <Table.Td>{item.quantity}</Table.Td>
                    <Table.Td>{item.fulfilledQuantity}</Table.Td>
                    <Table.Td>{money(item.lineTotal)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <Text>
              Subtotal {money(o.subtotal)} · Discount {money(o.discountTotal)} · Shipping {money(o.shippingTotal)} · <strong>Total {money(o.total)}</strong>
              {o.amountRefunded > 0 && ` · Refunded ${money(o.amountRefunded)}`}
            </Text>
            <Title order={2} size="h4">
              Fulfilments
            </Title>
            {o.fulfillments.length === 0 && <Text>None yet.</Text>}
            {o.fulfillments.map((f) => (
              <Text key={f.id} data-testid="fulfillment">
                {new Date(f.createdAt).toLocaleString()}: {f.items.reduce((n, i) => n + i.quantity, 0)} items
                {f.trackingCompany ? ` via ${f.trackingCompany}` : ''} {f.trackingNumber ?? ''}
              </Text>
            ))}
            <OrderTimeline orderId={orderId} />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Stack>
            {o.status !== 'cancelled' && o.fulfillmentStatus !== 'fulfilled' && <FulfilForm orderId={orderId} />}
            {me.data?.role !== 'staff' && <OrderActions order={o} />}
            {o.items.some((item) => item.fulfilledQuantity > 0) && <OrderReturns order={o} canRefund={me.data?.role !== 'staff'} />}
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
