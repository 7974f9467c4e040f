import type { AppContext } from '../../context.js';
import type { Transaction } from '../../db/transaction.js';
import { formatMoney } from '../checkout/index.js';
import { enqueueEmail } from '../email/index.js';
import type { OrderItemRow, OrderRow } from './dto.js';
import { recordOrderEvent, type Actor } from './timeline.js';
import { orderMailStore, trackingUrlFor } from './tracking-url.js';

/**
 * The customer's summary of a committed edit or exchange (`order_edited`): the lines as they are
 * now, the new total, the difference and, for a balance collected by link, the link to pay it.
 * Queued in the change's transaction (it goes out only if the change commits), on the timeline.
 */
export async function emailEditSummary(
  ctx: AppContext,
  trx: Transaction,
  updated: OrderRow,
  after: OrderItemRow[],
  edit: { difference: number; total: number; paymentUrl: string },
  actor: Actor
): Promise<void> {
  const storeId = updated.storeId;
  const { difference, total } = edit;
  const store = await orderMailStore(ctx, storeId);
  const sorted = [...after].sort((a, b) => a.position - b.position);
  const trackingUrl = trackingUrlFor(store.trackingBase, updated.trackingToken);
  const sign = difference > 0 ? '+' : difference < 0 ? '-' : '';
  await enqueueEmail(
    ctx,
    {
      storeId,
      to: updated.email,
      templateKey: 'order_edited',
      data: {
        store: { name: store.name },
        customer: { firstName: (updated.shippingAddress as { firstName?: string }).firstName ?? 'there', lastName: '', email: updated.email },
        order: {
          number: `#${updated.number}`,
          items: sorted.map((item) => ({ title: item.title, quantity: item.quantity - (item.exchangedQuantity ?? 0) })).filter((item) => item.quantity > 0),
          total,
          currency: updated.currency,
          totalFormatted: formatMoney(total, updated.currency),
          trackingUrl
        },
        edit: { difference, differenceFormatted: difference === 0 ? '' : `${sign}${formatMoney(Math.abs(difference), updated.currency)}`, paymentUrl: edit.paymentUrl }
      }
    },
    { trx }
  );
  await recordOrderEvent(trx, storeId, updated.id, 'email_sent', actor, { template: 'order_edited', to: updated.email });
}
