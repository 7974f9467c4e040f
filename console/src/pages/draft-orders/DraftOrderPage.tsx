import { Anchor, Badge, Card, Grid, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { ConfirmButton } from '../../components/ConfirmButton';
import { human } from '../../components/labels';
import { ListState } from '../../components/ListState';
import { formatMoney } from '../../components/Money';
import { CompleteDraft } from './CompleteDraft';
import { DraftForm } from './DraftForm';
import type { DraftOrder } from './draft-form-state';

/** The totals as the API computed them when the draft was last saved. */
function DraftTotals({ draft }: { draft: DraftOrder }) {
  const money = (amount: number) => formatMoney(amount, draft.currency);
  return (
    <Card withBorder component="section" aria-labelledby="totals-title">
      <Title order={2} size="h4" id="totals-title">
        Totals
      </Title>
      <div className="table-scroll">
        <Table aria-label="Draft lines">
          <Table.Tbody>
            {draft.lines.map((line, index) => (
              <Table.Tr key={index}>
                <Table.Td>{line.title}</Table.Td>
                <Table.Td>
                  {line.quantity} × {money(line.unitPrice)}
                </Table.Td>
                <Table.Td>{money(line.lineTotal)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <Text size="sm" data-testid="draft-totals">
        Subtotal {money(draft.subtotal)} · Discount {money(draft.discountTotal)}
        {draft.discountCode ? ` (${draft.discountCode})` : ''} · Shipping {money(draft.shippingTotal)}
        {draft.shipping ? ` (${draft.shipping.title})` : ''} · <strong>Total {money(draft.total)}</strong>
      </Text>
    </Card>
  );
}

/** New draft (/draft-orders/new) or one draft: edited while open, completed or deleted (asked first). */
export function DraftOrderPage() {
  const draftOrderId = useParams().draftOrderId;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [invoiceUrl, setInvoiceUrl] = useState<string | null>(null);
  const store = useQuery({ queryKey: ['dashboard'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store')).data });
  const draft = useQuery({
    queryKey: ['draft-order', draftOrderId],
    enabled: Boolean(draftOrderId),
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/draft-orders/{draftOrderId}', { params: { path: { draftOrderId: draftOrderId! } } })).data.draftOrder
  });
  const remove = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/admin/draft-orders/{draftOrderId}', { params: { path: { draftOrderId: draftOrderId! } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['draft-orders'] });
      navigate('/draft-orders');
    }
  });
  if (!draftOrderId) {
    return (
      <Stack>
        <Title order={1}>New draft order</Title>
        {store.data ? <DraftForm currency={store.data.store.currency} /> : <ListState query={store} count={undefined} empty="" label="the store" />}
      </Stack>
    );
  }
  if (!draft.data)
    return (
      <Stack>
        <Title order={1}>Draft order</Title>
        <ListState query={draft} count={undefined} empty="" label="the draft order" />
      </Stack>
    );
  const d = draft.data;
  return (
    <Stack>
      <Group>
        <Title order={1}>Draft order</Title>
        <Badge variant="outline" data-testid="draft-status">
          {human(d.status)}
        </Badge>
      </Group>
      <Text size="sm">
        {d.email ?? 'No email yet'} · created {new Date(d.createdAt).toLocaleString()}
        {d.invoicedAt ? ` · invoiced ${new Date(d.invoicedAt).toLocaleString()}` : ''}
      </Text>
      {invoiceUrl && (
        <Card withBorder role="status">
          <Text size="sm" data-testid="invoice-url" style={{ overflowWrap: 'anywhere' }}>
            Invoice sent to {d.email}. Payment link: <Anchor href={invoiceUrl}>{invoiceUrl}</Anchor>
          </Text>
        </Card>
      )}
      {d.orderId && (
        <Text size="sm">
          Completed as{' '}
          <Anchor component={Link} to={`/orders/${d.orderId}`}>
            its order
          </Anchor>
          .
        </Text>
      )}
      <Grid>
        <Grid.Col span={{ base: 12, md: 7 }}>{d.status === 'open' ? <DraftForm key={d.updatedAt} draft={d} currency={d.currency} /> : <DraftTotals draft={d} />}</Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Stack>
            {d.status === 'open' && <DraftTotals draft={d} />}
            {d.status === 'open' && <CompleteDraft key={d.updatedAt} draft={d} onInvoice={setInvoiceUrl} />}
            {d.status !== 'completed' && (
              <ConfirmButton
                label="Delete draft"
                question={d.status === 'invoiced' ? 'Delete this draft? Its invoice link stops working and its stock goes back.' : 'Delete this draft?'}
                confirm="Yes, delete"
                onConfirm={() => remove.mutate()}
                pending={remove.isPending}
                error={remove.error}
              />
            )}
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
