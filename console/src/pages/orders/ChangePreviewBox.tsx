import { Anchor, Button, Radio, Stack, Text } from '@mantine/core';
import { formatMoney } from '../../components/Money';
import { isPaid, type ChangePreview, type Collect, type Order } from './order-change';

/**
 * The preview's totals before and after, the difference, and how it is settled with the options
 * the API has: a paid order's higher total collected through a payment link emailed to the customer
 * (collect: invoice) or by hand (collect: mark_paid), a lower one refunded (Stripe or a manual
 * refund record); an unpaid order's total just changes.
 */
export function ChangePreviewBox({
  order,
  preview,
  collect,
  onCollect,
  onCommit,
  pending,
  commitLabel
}: {
  order: Order;
  preview: ChangePreview;
  collect: Collect | null;
  onCollect: (value: Collect) => void;
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
      {paid && difference > 0 && (
        <Radio.Group label={`How are the ${money(difference)} collected?`} value={collect ?? ''} onChange={(value) => onCollect(value as Collect)}>
          <Stack gap={4} mt={4}>
            <Radio value="invoice" label="Email the customer a payment link" />
            <Radio value="mark_paid" label="I collected it by hand (mark it paid)" />
          </Stack>
        </Radio.Group>
      )}
      <Button w="fit-content" onClick={onCommit} loading={pending} disabled={paid && difference > 0 && !collect}>
        {commitLabel}
      </Button>
    </Stack>
  );
}

/** The payment link a commit opened (collect: invoice): emailed to the customer, shown here once to copy. */
export function BalanceInvoiceLink({ invoice, currency }: { invoice: { url: string; amount: number } | null; currency: string }) {
  if (!invoice) return null;
  return (
    <Text size="sm" data-testid="balance-invoice">
      The customer was emailed a link to pay {formatMoney(invoice.amount, currency)}:{' '}
      <Anchor href={invoice.url} target="_blank" rel="noreferrer">
        {invoice.url}
      </Anchor>
    </Text>
  );
}
