import { Anchor, Badge, Card, Grid, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router-dom';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { useMe } from '../../api/me';
import type { components } from '../../api/schema';
import { human } from '../../components/labels';
import { ListState } from '../../components/ListState';
import { formatMoney } from '../../components/Money';
import { FulfilForm } from './FulfilForm';
import { OrderActions } from './OrderActions';
import { OrderBalances } from './OrderBalances';
import { OrderDisputes } from './OrderDisputes';
import { OrderEditForm } from './OrderEditForm';
import { OrderExchangeForm } from './OrderExchangeForm';
import { OrderReturns } from './OrderReturns';
import { OrderTimeline } from './OrderTimeline';
import { PendingRefundRetry } from './PendingRefundRetry';
import { RefundForm } from './RefundForm';

type Address = components['schemas']['Address'];
type Order = components['schemas']['Order'];

function AddressBlock({ address }: { address: Address }) {
  return (
    <Text component="address" size="sm" style={{ fontStyle: 'normal', whiteSpace: 'pre-line' }}>
      {[
        `${address.firstName} ${address.lastName}`,
        address.line1,
        address.line2,
        [address.postalCode, address.city].filter(Boolean).join(' '),
        [address.region, address.country].filter(Boolean).join(', '),
        address.phone
      ]
        .filter(Boolean)
        .join('\n')}
    </Text>
  );
}

/** What each line is: ordered, fulfilled, refunded, returned (an operator fulfils and refunds from it). */
function lineState(item: Order['items'][number]): string {
  const parts = [item.fulfilledQuantity >= item.quantity ? 'Fulfilled' : item.fulfilledQuantity > 0 ? `${item.fulfilledQuantity} of ${item.quantity} fulfilled` : 'Unfulfilled'];
  if (item.refundedQuantity > 0) parts.push(item.refundedQuantity >= item.quantity ? 'refunded' : `${item.refundedQuantity} refunded`);
  if (item.returnedQuantity > 0) parts.push(`${item.returnedQuantity} returned`);
  if (item.restockedQuantity > 0) parts.push(`${item.restockedQuantity} restocked`);
  return parts.join(' · ');
}

export function OrderDetail() {
  const orderId = useParams().orderId!;
  const me = useMe();
  const order = useQuery({
    queryKey: ['order', orderId],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/orders/{orderId}', { params: { path: { orderId } } })).data.order
  });
  if (!order.data)
    return (
      <Stack>
        <Title order={1}>Order</Title>
        <ListState query={order} count={undefined} empty="" label="the order" />
      </Stack>
    );
  const o = order.data;
  const money = (amount: number) => formatMoney(amount, o.currency);
  const isAdmin = me.data?.role !== 'staff';
  const fulfilledAny = o.items.some((item) => item.fulfilledQuantity > 0);
  const canFulfil = o.status !== 'cancelled' && o.items.some((item) => item.fulfilledQuantity < item.quantity - item.refundedQuantity);
  const canRefund = isAdmin && (o.paymentStatus === 'paid' || o.paymentStatus === 'partially_refunded') && o.amountRefunded < o.total;
  // Edits and exchanges reprice without tax for now: the API refuses them (409) on an order that charged tax.
  const canChange = o.status !== 'cancelled';
  const name = `${o.shippingAddress.firstName} ${o.shippingAddress.lastName}`;
  return (
    <Stack>
      <Group>
        <Title order={1}>Order #{o.number}</Title>
        <Badge data-testid="order-status" variant="outline">
          {human(o.status)}
        </Badge>
        <Badge color="grape.9" data-testid="payment-status">
          {human(o.paymentStatus)}
        </Badge>
        <Badge color="teal.9" data-testid="fulfillment-status">
          {human(o.fulfillmentStatus)}
        </Badge>
      </Group>
      <Text size="sm">
        Placed {new Date(o.createdAt).toLocaleString()}
        {o.cancelledAt ? ` · cancelled ${new Date(o.cancelledAt).toLocaleString()}${o.cancelReason ? ` (${o.cancelReason})` : ''}` : ''}
      </Text>
      <Grid>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack>
            <Card withBorder component="section" aria-labelledby="customer-title">
              <Title order={2} size="h4" id="customer-title">
                Customer
              </Title>
              <Text data-testid="customer-name" fw={600}>
                {o.customerId ? (
                  <Anchor component={Link} to={`/customers/${o.customerId}`}>
                    {name}
                  </Anchor>
                ) : (
                  name
                )}
              </Text>
              <Anchor href={`mailto:${o.email}`} size="sm">
                {o.email}
              </Anchor>
              <Grid mt="xs">
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <Title order={3} size="h6">
                    Shipping address
                  </Title>
                  <div data-testid="shipping-address">
                    <AddressBlock address={o.shippingAddress} />
                  </div>
                  {o.shippingMethod && (
                    <Text size="sm" mt={4}>
                      {o.shippingMethod.name} ({money(o.shippingMethod.price)})
                    </Text>
                  )}
                </Grid.Col>
                <Grid.Col span={{ base: 12, sm: 6 }}>
                  <Title order={3} size="h6">
                    Billing address
                  </Title>
                  {o.billingAddress ? <AddressBlock address={o.billingAddress} /> : <Text size="sm">Same as shipping</Text>}
                </Grid.Col>
              </Grid>
            </Card>
            <div className="table-scroll">
              <Table aria-label="Items">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Item</Table.Th>
                    <Table.Th>Quantity</Table.Th>
                    <Table.Th>State</Table.Th>
                    <Table.Th>Total</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {o.items.map((item) => (
                    <Table.Tr key={item.id}>
                      <Table.Td>
                        {item.title}
                        {item.sku && (
                          <Text size="xs" c="dimmed">
                            SKU {item.sku}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        {item.quantity} × {money(item.unitPrice)}
                      </Table.Td>
                      <Table.Td data-testid="line-state">{lineState(item)}</Table.Td>
                      <Table.Td>{money(item.lineTotal)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </div>
            <Card withBorder component="section" aria-labelledby="payment-title">
              <Title order={2} size="h4" id="payment-title">
                Payment
              </Title>
              <Text size="sm">
                Subtotal {money(o.subtotal)} · Discount {money(o.discountTotal)}
                {o.discountCode ? ` (${o.discountCode})` : ''} · Shipping {money(o.shippingTotal)} · <strong>Total {money(o.total)}</strong>
              </Text>
              <Text size="sm" data-testid="payment-summary">
                {human(o.paymentStatus)} by {o.paymentProvider === 'manual' ? 'manual payment' : human(o.paymentProvider)}
                {o.amountRefunded > 0 && ` · refunded ${money(o.amountRefunded)} of ${money(o.total)}`}
              </Text>
              {o.refunds.length > 0 && (
                <Stack gap={2} mt="xs">
                  {o.refunds.map((r) => (
                    <div key={r.id}>
                      <Text size="sm" data-testid="refund">
                        {new Date(r.createdAt).toLocaleString()}: {money(r.amount)} {human(r.status).toLowerCase()}
                        {r.items.length > 0 && ` — ${r.items.map((line) => `${line.quantity} × ${o.items.find((i) => i.id === line.orderItemId)?.title ?? 'item'}${line.restock ? ' (restocked)' : ''}`).join(', ')}`}
                        {r.reason ? ` — ${r.reason}` : ''}
                      </Text>
                      {isAdmin && r.status === 'pending' && r.payments.some((part) => part.provider === 'stripe') && <PendingRefundRetry orderId={orderId} refund={r} />}
                    </div>
                  ))}
                </Stack>
              )}
              {o.paymentProvider === 'stripe' && <OrderDisputes orderId={orderId} />}
            </Card>
            <Card withBorder component="section" aria-labelledby="fulfilments-title">
              <Title order={2} size="h4" id="fulfilments-title">
                Fulfilments
              </Title>
              {o.fulfillments.length === 0 && <Text size="sm">None yet.</Text>}
              {o.fulfillments.map((f) => (
                <Text key={f.id} size="sm" data-testid="fulfillment">
                  {new Date(f.createdAt).toLocaleString()}: {f.items.reduce((n, i) => n + i.quantity, 0)} items
                  {f.trackingCompany ? ` via ${f.trackingCompany}` : ''} {f.trackingNumber ?? ''}
                </Text>
              ))}
            </Card>
            <OrderTimeline orderId={orderId} />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Stack>
            {canFulfil && <FulfilForm orderId={orderId} />}
            {isAdmin && <OrderActions order={o} canCancel={o.status !== 'cancelled' && !fulfilledAny} />}
            {canRefund && <RefundForm order={o} />}
            {fulfilledAny && <OrderReturns order={o} canRefund={isAdmin} />}
            <OrderBalances order={o} />
            {canChange && <OrderEditForm order={o} />}
            {canChange && fulfilledAny && <OrderExchangeForm order={o} />}
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
