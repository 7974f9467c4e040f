import { Button, Card, Checkbox, Group, NumberInput, Radio, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';
import { formatMoney } from '../../components/Money';

type Order = components['schemas']['Order'];
type Preview = components['schemas']['RefundPreview'];

const toMinor = (value: number | string) => Math.round(Number(value || 0) * 100);

/**
 * A partial refund: by line (units of each item, each with its restock choice, plus shipping) or by
 * amount. A preview of what moves comes first (?dryRun=true), then the refund itself, sent with an
 * Idempotency-Key so a double submit refunds once. Owner and admin.
 */
export function RefundForm({ order }: { order: Order }) {
  const queryClient = useQueryClient();
  const refundable = order.items.filter((item) => item.quantity > item.refundedQuantity);
  const [mode, setMode] = useState<'lines' | 'amount'>(refundable.length ? 'lines' : 'amount');
  const [quantities, setQuantities] = useState<Record<string, number>>({});
  const [restock, setRestock] = useState<Record<string, boolean>>({});
  const [shipping, setShipping] = useState<number | string>('');
  const [amount, setAmount] = useState<number | string>('');
  const [reason, setReason] = useState('');
  const [notifyCustomer, setNotify] = useState(true);
  const [key, setKey] = useState(() => crypto.randomUUID());
  const body = () => {
    if (mode === 'amount') return { amount: toMinor(amount), reason, notifyCustomer };
    const items = refundable
      .filter((item) => (quantities[item.id] ?? 0) > 0)
      .map((item) => ({ orderItemId: item.id, quantity: quantities[item.id]!, restock: restock[item.id] ?? false }));
    return { ...(items.length ? { items } : {}), ...(toMinor(shipping) > 0 ? { shipping: toMinor(shipping) } : {}), reason, notifyCustomer };
  };
  const preview = useMutation({
    mutationFn: async () => (unwrap(await api.POST('/api/v1/admin/orders/{orderId}/refunds', { params: { path: { orderId: order.id }, query: { dryRun: true } }, body: body() })).data as { preview: Preview }).preview
  });
  const refund = useMutation({
    mutationFn: async () =>
      (unwrap(await api.POST('/api/v1/admin/orders/{orderId}/refunds', { params: { path: { orderId: order.id } }, body: body(), headers: { 'idempotency-key': key } })).data as { order: Order }).order,
    onSuccess: (next) => {
      queryClient.setQueryData(['order', order.id], next);
      void queryClient.invalidateQueries({ queryKey: ['timeline', order.id] });
      void queryClient.invalidateQueries({ queryKey: ['orders'] });
      preview.reset();
      setQuantities({});
      setRestock({});
      setShipping('');
      setAmount('');
      setReason('');
      setKey(crypto.randomUUID());
    }
  });
  const changed = () => preview.reset();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    preview.mutate();
  };
  const money = (value: number) => formatMoney(value, order.currency);
  const error = preview.error ?? refund.error;
  return (
    <Card withBorder component="section" aria-labelledby="refund-title">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="refund-title">
            Refund
          </Title>
          <Text size="sm">
            Refunded so far {money(order.amountRefunded)} of {money(order.total)}.
          </Text>
          <Radio.Group label="Refund by" value={mode} onChange={(value) => (setMode(value as 'lines' | 'amount'), changed())}>
            <Group mt={4}>
              <Radio value="lines" label="Items" disabled={!refundable.length} />
              <Radio value="amount" label="Amount" />
            </Group>
          </Radio.Group>
          {mode === 'lines' ? (
            <Stack gap="xs">
              {refundable.map((item) => (
                <Group key={item.id} align="flex-end" wrap="wrap">
                  <NumberInput
                    label={`Refund quantity of ${item.title}`}
                    description={`${item.quantity - item.refundedQuantity} refundable`}
                    min={0}
                    max={item.quantity - item.refundedQuantity}
                    allowDecimal={false}
                    value={quantities[item.id] ?? 0}
                    onChange={(value) => (setQuantities((q) => ({ ...q, [item.id]: Number(value) || 0 })), changed())}
                    w={200}
                  />
                  <Checkbox
                    label={`Restock ${item.title}`}
                    checked={restock[item.id] ?? false}
                    onChange={(e) => {
                      const checked = e.currentTarget.checked;
                      setRestock((r) => ({ ...r, [item.id]: checked }));
                      changed();
                    }}
                    mb={8}
                  />
                </Group>
              ))}
              {order.shippingTotal > 0 && (
                <NumberInput label="Shipping to refund" min={0} decimalScale={2} value={shipping} onChange={(v) => (setShipping(v), changed())} w={200} error={fieldError(error, 'shipping')} />
              )}
            </Stack>
          ) : (
            <NumberInput label="Amount to refund" min={0} decimalScale={2} value={amount} onChange={(v) => (setAmount(v), changed())} w={200} error={fieldError(error, 'amount')} />
          )}
          <TextInput label="Refund reason" value={reason} onChange={(e) => (setReason(e.currentTarget.value), changed())} error={fieldError(error, 'reason')} />
          <Checkbox label="Email the customer about the refund" checked={notifyCustomer} onChange={(e) => setNotify(e.currentTarget.checked)} />
          <Button type="submit" variant="default" w="fit-content" disabled={!reason} loading={preview.isPending}>
            Preview refund
          </Button>
          {preview.data && (
            <Stack gap="xs">
              <Text role="status" data-testid="refund-preview">
                Refund {money(preview.data.amount)} of {money(preview.data.refundable)} refundable
                {preview.data.items.some((i) => i.restock) ? '; the chosen items go back in stock' : ''}
              </Text>
              <Button color="red" w="fit-content" onClick={() => refund.mutate()} loading={refund.isPending}>
                Refund {money(preview.data.amount)}
              </Button>
            </Stack>
          )}
          <FormError error={error} fields={['reason', 'amount', 'shipping']} />
        </Stack>
      </form>
    </Card>
  );
}
