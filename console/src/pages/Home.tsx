import { Anchor, Card, List, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import { unwrap } from '../api/errors';
import { formatMoney } from '../components/Money';

export function Home() {
  const dashboard = useQuery({ queryKey: ['dashboard'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store')).data });
  if (!dashboard.data) return <Text>Loading…</Text>;
  const { store, stats, setup, recentOrders, openIssues } = dashboard.data;
  const figures: Array<[string, string | number]> = [
    ['Orders', stats.ordersCount],
    ['Revenue (30 days)', formatMoney(stats.revenue30d, store.currency)],
    ['Customers', stats.customersCount],
    ['Subscribers', stats.subscribersCount],
    ['Products', stats.productsCount],
    ['Reviews to moderate', stats.pendingReviews],
    ['Low-stock variants', stats.lowStockVariants]
  ];
  const checklist: Array<[string, boolean]> = [
    ['Add a product', setup.hasProducts],
    ['Connect payments', setup.paymentsConnected],
    ['Set up email', setup.emailConfigured],
    ['Verify your domain', setup.domainVerified]
  ];
  return (
    <Stack>
      <Title order={1}>{store.name}</Title>
      <SimpleGrid cols={{ base: 2, md: 4 }}>
        {figures.map(([label, value]) => (
          <Card key={label} withBorder>
            <Text size="sm">{label}</Text>
            <Text fw={700} size="xl">
              {value}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
      <Title order={2} size="h3">
        Setup
      </Title>
      <List>
        {checklist.map(([label, done]) => (
          <List.Item key={label}>
            {done ? '✓' : '○'} {label}
          </List.Item>
        ))}
      </List>
      <Title order={2} size="h3">
        Recent orders
      </Title>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Order</Table.Th>
            <Table.Th>Customer</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Total</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {recentOrders.map((order) => (
            <Table.Tr key={order.id}>
              <Table.Td>
                <Anchor component={Link} to={`/orders/${order.id}`}>
                  #{order.number}
                </Anchor>
              </Table.Td>
              <Table.Td>{order.email}</Table.Td>
              <Table.Td>{order.status}</Table.Td>
              <Table.Td>{formatMoney(order.total, order.currency)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {openIssues.length > 0 && (
        <>
          <Title order={2} size="h3">
            Open issues
          </Title>
          <List>
            {openIssues.map((issue) => (
              <List.Item key={issue.id}>{issue.title}</List.Item>
            ))}
          </List>
        </>
      )}
    </Stack>
  );
}
