import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { components } from '../../api/schema';

export type Order = components['schemas']['Order'];
type Totals = { subtotal: number; discountTotal: number; shippingTotal: number; total: number };
export interface ChangePreview {
  difference: number;
  totals: Totals;
  before: Totals;
  version: number;
}

/** How a paid order's higher total is collected: a payment link emailed to the customer, or by hand. */
export type Collect = 'invoice' | 'mark_paid';

/** A paid order's difference is settled: collected (link or by hand) when it grows, refunded when it shrinks. */
export const isPaid = (order: Order) => order.paymentStatus === 'paid' || order.paymentStatus === 'partially_refunded';

/** A line an edit may change or remove: nothing of it fulfilled, refunded or returned (else 409 already_fulfilled). */
export const changeable = (item: Order['items'][number]) => item.fulfilledQuantity === 0 && item.refundedQuantity === 0 && item.returnedQuantity === 0;

/**
 * An edit or an exchange in two steps: the preview (`?dryRun=true`: new totals and the difference,
 * nothing written) and the commit, sent with the preview's order version (409 when the order
 * changed in between: someone fulfilled, refunded or edited it) and an Idempotency-Key.
 */
export function useOrderChange(order: Order, kind: 'edits' | 'exchanges', onCommitted: () => void) {
  const queryClient = useQueryClient();
  const [key, setKey] = useState(() => crypto.randomUUID());
  // The payment link of the last commit that collects by link: shown once (the API keeps only its hash).
  const [invoice, setInvoice] = useState<{ url: string; amount: number } | null>(null);
  const path = kind === 'edits' ? '/api/v1/admin/orders/{orderId}/edits' : '/api/v1/admin/orders/{orderId}/exchanges';
  const preview = useMutation({
    mutationFn: async (body: object) =>
      (unwrap(await api.POST(path as '/api/v1/admin/orders/{orderId}/edits', { params: { path: { orderId: order.id }, query: { dryRun: true } }, body: body as never })).data as { edit: ChangePreview }).edit
  });
  const commit = useMutation({
    mutationFn: async (body: object) =>
      unwrap(
        await api.POST(path as '/api/v1/admin/orders/{orderId}/edits', {
          params: { path: { orderId: order.id } },
          body: { ...body, version: preview.data?.version } as never,
          headers: { 'idempotency-key': key }
        })
      ).data as { order: Order; edit: { difference: number; refund: { amount: number; status: string } | null; invoice?: { url: string; amount: number } | null } },
    onSuccess: (result) => {
      setInvoice(result.edit.invoice ?? null);
      queryClient.setQueryData(['order', order.id], result.order);
      void queryClient.invalidateQueries({ queryKey: ['timeline', order.id] });
      void queryClient.invalidateQueries({ queryKey: ['orders'] });
      setKey(crypto.randomUUID());
      preview.reset();
      onCommitted();
    }
  });
  return { preview, commit, invoice, error: preview.error ?? commit.error };
}
