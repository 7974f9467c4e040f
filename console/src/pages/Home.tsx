import { Anchor, Card, List, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import { unwrap } from '../api/errors';
import { useMe } from '../api/me';
import { human } from '../components/labels';
import { ListState } from '../components/ListState';
import { formatMoney } from '../components/Money';
import { nextCursorOf } from '../components/Pager';

const DAY = 86_400_000;
const DAYS = 30;

/** Orders of the last 30 days (newest first, pages of 100, ten pages at most), bucketed by day: sales and counts. */
function useLast30Days() {
  return useQuery({
    queryKey: ['orders', 'last-30-days'],
    queryFn: async () => {
      const since = Date.now() - DAYS * DAY;
      const sales = new Array<number>(DAYS).fill(0);
      const counts = new Array<number>(DAYS).fill(0);
      let cursor: string | null = null;
      let currency = 'USD';
      for (let page = 0; page < 10; page++) {
        const result = unwrap(await api.GET('/api/v1/admin/orders', { params: { query: { limit: 100, sort: '-createdAt' as never, ...(cursor ? { cursor } : {}) } } }));
        let older = false;
        for (const order of result.data.orders) {
          const at = new Date(order.createdAt).getTime();
          if (at < since) {
            older = true;
            break;
          }
          if (order.status === 'cancelled') continue;
          const day = Math.min(DAYS - 1, Math.floor((at - since) / DAY));
          sales[day]! += order.total - order.amountRefunded;
          counts[day]! += 1;
          currency = order.currency;
        }
        cursor = nextCursorOf(result.meta);
        if (older || !cursor) break;
      }
      return { sales, counts, currency };
    }
  });
}

/** A small inline bar chart (no chart library: the first load stays small), described in words for screen readers. */
function Bars({ values, label, summary }: { values: number[]; label: string; summary: string }) {
  const max = Math.max(1, ...values);
  const width = 300;
  const height = 80;
  const bar = width / values.length;
  return (
    <svg viewBox={`0 0 ${width} ${height}`} width="100%" height={height} role="img" aria-label={`${label}: ${summary}`} preserveAspectRatio="none">
      {values.map((value, i) => {
        const h = (value / max) * (height - 4);
        return <rect key={i} x={i * bar + 1} y={height - h} width={bar - 2} height={h} fill="var(--mantine-color-blue-8)" />;
      })}
      <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} stroke="var(--mantine-color-gray-6)" />
    </svg>
  );
}

/** What needs the operator now, each a link: unfulfilled orders, failing webhooks, failed jobs, low stock, reviews, open issues. */
function useAttention(isAdmin: boolean) {
  const unfulfilled = useQuery({
    queryKey: ['orders', 'attention-unfulfilled'],
    queryFn: async () => {
      const result = unwrap(await api.GET('/api/v1/admin/orders', { params: { query: { limit: 50, status: 'open', fulfillmentStatus: 'unfulfilled' } } }));
      return { count: result.data.orders.length, more: Boolean(nextCursorOf(result.meta)) };
    }
  });
  const webhooks = useQuery({
    queryKey: ['webhooks', 'attention'],
    enabled: isAdmin,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/webhooks')).data.webhooks.filter((w) => w.failingSince !== null || !w.enabled).length
  });
  const jobs = useQuery({
    queryKey: ['jobs', 'attention'],
    enabled: isAdmin,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/jobs', { params: { query: { limit: 50 } } })).data.jobs.filter((j) => j.status === 'failed').length
  });
  return { unfulfilled: unfulfilled.data, failingWebhooks: webhooks.data, failedJobs: jobs.data };
}

export function Home() {
  const me = useMe();
  const isAdmin = me.data !== undefined && me.data.role !== 'staff';
  const dashboard = useQuery({ queryKey: ['dashboard'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store')).data });
  const history = useLast30Days();
  const attention = useAttention(isAdmin);
  if (!dashboard.data)
    return (
      <Stack>
        <Title order={1}>Home</Title>
        <ListState query={dashboard} count={undefined} empty="" label="the store" />
      </Stack>
    );
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
  const checklist: Array<[string, boolean, string]> = [
    ['Add a product', setup.hasProducts, '/products/new'],
    ['Connect payments', setup.paymentsConnected, '/settings/domain-payments'],
    ['Set up email', setup.emailConfigured, '/settings/email'],
    ['Verify your domain', setup.domainVerified, '/settings/domain-payments']
  ];
  const needs: Array<[string, string]> = [];
  if (attention.unfulfilled && attention.unfulfilled.count > 0)
    needs.push([`${attention.unfulfilled.count}${attention.unfulfilled.more ? '+' : ''} orders to fulfil`, '/orders?fulfillment=unfulfilled']);
  if (attention.failingWebhooks) needs.push([`${attention.failingWebhooks} webhooks failing or disabled`, '/settings/webhooks']);
  if (attention.failedJobs) needs.push([`${attention.failedJobs} failed jobs`, '/jobs']);
  if (stats.lowStockVariants > 0) needs.push([`${stats.lowStockVariants} variants low in stock`, '/products']);
  if (stats.pendingReviews > 0) needs.push([`${stats.pendingReviews} reviews to moderate`, '/reviews']);
  const h = history.data;
  const totalSales = h ? h.sales.reduce((a, b) => a + b, 0) : 0;
  const totalOrders = h ? h.counts.reduce((a, b) => a + b, 0) : 0;
  return (
    <Stack>
      <Title order={1}>{store.name}</Title>
      <section aria-labelledby="attention-title">
        <Title order={2} size="h3" id="attention-title">
          Needs attention
        </Title>
        {needs.length === 0 && openIssues.length === 0 ? (
          <Text data-testid="attention">Nothing waiting: all orders are fulfilled, webhooks and jobs are healthy.</Text>
        ) : (
          <List data-testid="attention">
            {needs.map(([label, to]) => (
              <List.Item key={label}>
                <Anchor component={Link} to={to}>
                  {label}
                </Anchor>
              </List.Item>
            ))}
            {openIssues.map((issue) => (
              <List.Item key={issue.id}>
                {human(issue.severity)}: {issue.title}
              </List.Item>
            ))}
          </List>
        )}
      </section>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Card withBorder component="section" aria-labelledby="sales-title">
          <Title order={2} size="h4" id="sales-title">
            Sales, last 30 days
          </Title>
          <Text fw={700} size="xl" data-testid="sales-30">
            {h ? formatMoney(totalSales, h.currency) : '…'}
          </Text>
          {h && <Bars values={h.sales} label="Sales per day over the last 30 days" summary={`${formatMoney(totalSales, h.currency)} in total, best day ${formatMoney(Math.max(...h.sales), h.currency)}`} />}
        </Card>
        <Card withBorder component="section" aria-labelledby="orders-title">
          <Title order={2} size="h4" id="orders-title">
            Orders, last 30 days
          </Title>
          <Text fw={700} size="xl" data-testid="orders-30">
            {h ? totalOrders : '…'}
          </Text>
          {h && <Bars values={h.counts} label="Orders per day over the last 30 days" summary={`${totalOrders} in total, at most ${Math.max(...h.counts)} a day`} />}
        </Card>
      </SimpleGrid>
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
        {checklist.map(([label, done, to]) => (
          <List.Item key={label}>
            {done ? (
              `✓ ${label}`
            ) : (
              <Anchor component={Link} to={to}>
                ○ {label}
              </Anchor>
            )}
          </List.Item>
        ))}
      </List>
      <Title order={2} size="h3">
        Recent orders
      </Title>
      <div className="table-scroll">
        <Table aria-label="Recent orders">
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
                <Table.Td>{human(order.fulfillmentStatus)}</Table.Td>
                <Table.Td>{formatMoney(order.total, order.currency)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      {recentOrders.length === 0 && <Text>No orders yet: they appear here when shoppers check out.</Text>}
    </Stack>
  );
}
