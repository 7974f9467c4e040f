import { Button, Card, Group, NativeSelect, NumberInput, Radio, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';
import { human } from '../../components/labels';
import { ListState } from '../../components/ListState';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';

type Product = components['schemas']['Product'];

/**
 * Stock of a saved product: an adjustment (a delta, or a count of what is on hand) through the
 * inventory route, which writes the ledger atomically, and the ledger itself (sales, cancels,
 * refunds, returns, counts, imports), filtered by variant. `onAdjusted` keeps the product form's
 * stock figure in step, so saving the form afterwards does not put the old figure back.
 */
export function InventoryPanel({ product, onAdjusted }: { product: Product; onAdjusted: (variantId: string, inventoryQuantity: number) => void }) {
  const queryClient = useQueryClient();
  const [variantId, setVariantId] = useState(product.variants[0]?.id ?? '');
  const [mode, setMode] = useState<'delta' | 'quantity'>('delta');
  const [amount, setAmount] = useState<number | string>('');
  const [reason, setReason] = useState('');
  const [filter, setFilter] = useState('');
  // Figures this panel moved (the product query is left alone: re-reading it would reset the form's unsaved edits).
  const [known, setKnown] = useState<Record<string, number>>({});
  const pager = useCursor();
  const titleOf = (id: string) => product.variants.find((variant) => variant.id === id)?.title ?? 'Variant';
  const history = useQuery({
    queryKey: ['inventory-history', product.id, filter, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/admin/products/{productId}/inventory-history', {
          params: { path: { productId: product.id }, query: { limit: 20, ...(filter ? { variantId: filter } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) } }
        })
      )
  });
  const adjust = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/admin/products/{productId}/variants/{variantId}/inventory', {
          params: { path: { productId: product.id, variantId } },
          body: { ...(mode === 'delta' ? { delta: Number(amount) } : { quantity: Number(amount) }), reason: reason.trim() || null } as never
        })
      ).data,
    onSuccess: (result) => {
      onAdjusted(result.variant.id, result.variant.inventoryQuantity);
      setKnown((old) => ({ ...old, [result.variant.id]: result.variant.inventoryQuantity }));
      setAmount('');
      setReason('');
      void queryClient.invalidateQueries({ queryKey: ['inventory-history', product.id] });
      void queryClient.invalidateQueries({ queryKey: ['products'] });
    }
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    adjust.mutate();
  };
  const entries = history.data?.data.entries;
  const variantChoices = product.variants.map((variant) => ({ value: variant.id, label: variant.title }));
  return (
    <Card withBorder component="section" aria-labelledby="inventory-title">
      <Stack>
        <Title order={2} size="h4" id="inventory-title">
          Inventory
        </Title>
        <form onSubmit={submit} aria-label="Adjust stock">
          <Stack gap="xs">
            <Group align="flex-end" wrap="wrap">
              {product.variants.length > 1 && <NativeSelect label="Variant to adjust" value={variantId} onChange={(e) => setVariantId(e.currentTarget.value)} data={variantChoices} />}
              <Radio.Group label="Adjust by" value={mode} onChange={(value) => setMode(value as 'delta' | 'quantity')}>
                <Group mt={4}>
                  <Radio value="delta" label="Adding or removing units" />
                  <Radio value="quantity" label="Counting what is on hand" />
                </Group>
              </Radio.Group>
            </Group>
            <Group align="flex-start" wrap="wrap">
              <NumberInput
                label={mode === 'delta' ? 'Units to add (negative to remove)' : 'Units on hand'}
                allowDecimal={false}
                min={mode === 'quantity' ? 0 : undefined}
                value={amount}
                onChange={setAmount}
                w={220}
                error={fieldError(adjust.error, mode)}
              />
              <TextInput label="Adjustment reason" value={reason} onChange={(e) => setReason(e.currentTarget.value)} error={fieldError(adjust.error, 'reason')} />
            </Group>
            <Text size="sm">
              In stock now: {titleOf(variantId)} {known[variantId] ?? product.variants.find((variant) => variant.id === variantId)?.inventoryQuantity ?? 0} available to sell
            </Text>
            <Button type="submit" w="fit-content" variant="default" disabled={amount === '' || !variantId} loading={adjust.isPending}>
              Adjust stock
            </Button>
            {adjust.isSuccess && (
              <Text size="sm" role="status" data-testid="stock-adjusted">
                {adjust.data.variant.title}: {adjust.data.variant.inventoryQuantity} available to sell
              </Text>
            )}
            <FormError error={adjust.error} fields={['delta', 'quantity', 'reason']} />
          </Stack>
        </form>
        <Title order={3} size="h5">
          Stock history
        </Title>
        {product.variants.length > 1 && (
          <NativeSelect label="Show variant" w={240} value={filter} onChange={(e) => (setFilter(e.currentTarget.value), pager.reset())} data={[{ value: '', label: 'All variants' }, ...variantChoices]} />
        )}
        <div className="table-scroll">
          <Table aria-label="Stock history">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Variant</Table.Th>
                <Table.Th>Change</Table.Th>
                <Table.Th>After</Table.Th>
                <Table.Th>Why</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {entries?.map((entry) => (
                <Table.Tr key={entry.id} data-testid="ledger-entry">
                  <Table.Td>{new Date(entry.createdAt).toLocaleString()}</Table.Td>
                  <Table.Td>{titleOf(entry.variantId)}</Table.Td>
                  <Table.Td>{entry.delta > 0 ? `+${entry.delta}` : entry.delta}</Table.Td>
                  <Table.Td>{entry.quantityAfter}</Table.Td>
                  <Table.Td>
                    {human(entry.reason)}
                    {entry.note ? ` — ${entry.note}` : ''}
                    {entry.orderId && (
                      <>
                        {' · '}
                        <Link to={`/orders/${entry.orderId}`}>order</Link>
                      </>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </div>
        <ListState query={history} count={entries?.length} empty="No stock moves yet." label="the stock history" />
        <Pager pager={pager} nextCursor={nextCursorOf(history.data?.meta)} />
      </Stack>
    </Card>
  );
}
