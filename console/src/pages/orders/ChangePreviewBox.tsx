import { Button, Checkbox, Stack, Text } from '@mantine/core';
import { formatMoney } from '../../components/Money';
import { isPaid, type ChangePreview, type Order } from './order-change';

/**
 * The preview's totals before and after, the difference, and how it is settled with the options
 * the API has: a paid order's higher total collected by hand (collect: mark_paid), a lower one
 * refunded (Stripe or a manual refund record); an unpaid order's total just changes.
 */
export function ChangePreviewBox({
  order,
  preview,
  collected,
  onCollected,
  onCommit,
  pending,
  commitLabel
}: {
  order: Order;
  preview: ChangePreview;
  collected: boolean;
  onCollected: (value: boolean) => void;
  onCommit: () => void;
  pending: boolean;
  commitLabel: string;
}) {
  const money = (amount: number) => formatMoney(amount, order.currency);
  const { difference } = preview;
  const paid = isPaid(order);
  const settlement =
    difference === 0
      ? 'The total does not change.'
      : !paid
        ? `The order's payment is still pending: its total ${difference > 0 ? 'grows' : 'shrinks'} by ${money(Math.abs(difference))}.`
        : difference > 0
          ? `The customer owes ${money(difference)} more.`
          : `${money(-difference)} is refunded to the customer${order.paymentProvider === 'stripe' ? ' through Stripe' : ' (recorded as a manual refund)'}.`;
  return (
    <Stack gap="xs" data-testid="change-preview">
      <Text size="sm" role="status">
        Total {money(preview.before.total)} → <strong>{money(preview.totals.total)}</strong> (difference {difference >= 0 ? '+' : '−'}
        {money(Math.abs(difference))}) · subtotal {money(preview.totals.subtotal)} · discount {money(preview.totals.discountTotal)} · shipping {money(preview.totals.shippingTotal)}
      </Text>
      <Text size="sm">{settlement}</Text>
      {paid && difference > 0 && <Checkbox label={`I collected ${money(difference)} by hand (mark it paid)`} checked={collected} onChange={(e) => onCollected(e.currentTarget.checked)} />}
      <Button w="fit-content" onClick={onCommit} loading={pending} disabled={paid && difference > 0 && !collected}>
        {commitLabel}
      </Button>
    </Stack>
  );
}
