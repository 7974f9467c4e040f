import type { Owner, TestApp } from './app.js';
import { admin } from './catalog.js';
import { confirm, openSession } from './checkout.js';

type Lines = Array<{ orderItemId: string; quantity: number }>;

/**
 * The order operations that put stock back (cancel, refund, return), through the HTTP API, for the
 * tests of issue #31 ("stock put back twice"). Each answers the raw response: a test asserts its status.
 */
export function orderOps(app: TestApp, owner: Owner) {
  const post = (url: string, payload: unknown = {}) => app.request({ method: 'POST', url, payload, ...admin(owner) });
  return {
    /** A manual-payment order of these units, marked paid (so it can be refunded). */
    async paidOrder(items: Array<{ variantId: string; quantity: number }>, email = 'restock@example.com') {
      const { session } = await openSession(app, owner, items, { email });
      if (session.status !== 201) throw new Error(`session: ${session.status} ${session.raw}`);
      const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
      if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${confirmed.raw}`);
      const order = confirmed.body.data.order as { id: string; items: Array<{ id: string; variantId: string; quantity: number }> };
      const paid = await post(`/admin/orders/${order.id}/mark-paid`);
      if (paid.status !== 200) throw new Error(`mark-paid: ${paid.status} ${paid.raw}`);
      return order;
    },
    cancel: (orderId: string, payload: Record<string, unknown> = {}) => post(`/admin/orders/${orderId}/cancel`, { reason: 'test', notifyCustomer: false, ...payload }),
    refund: (orderId: string, items: Lines, restock = true) =>
      post(`/admin/orders/${orderId}/refunds`, { items: items.map((line) => ({ ...line, restock })), reason: 'test', notifyCustomer: false }),
    fulfil: (orderId: string) => post(`/admin/orders/${orderId}/fulfillments`, { notifyCustomer: false }),
    requestReturn: (orderId: string, items: Lines) => post(`/admin/orders/${orderId}/returns`, { items, reason: 'test' }),
    receive: (returnId: string, payload: Record<string, unknown> = {}) => post(`/admin/returns/${returnId}/receive`, { restock: true, notifyCustomer: false, ...payload }),
    /** A return of these lines, requested and received with restock (the received response). */
    async returned(orderId: string, items: Lines, payload: Record<string, unknown> = {}) {
      const requested = await post(`/admin/orders/${orderId}/returns`, { items, reason: 'test' });
      if (requested.status !== 201) throw new Error(`return: ${requested.status} ${requested.raw}`);
      return post(`/admin/returns/${requested.body.data.return.id}/receive`, { restock: true, notifyCustomer: false, ...payload });
    },
    /** The order as the API shows it. */
    async order(orderId: string) {
      const response = await app.request({ url: `/admin/orders/${orderId}`, ...admin(owner) });
      if (response.status !== 200) throw new Error(`order: ${response.status} ${response.raw}`);
      return response.body.data.order as { status: string; items: Array<{ id: string; quantity: number; restockedQuantity: number }>; refunds: Array<{ items: Array<{ restockedQuantity: number }> }> };
    },
    /** Each line's `restockedQuantity`, in item order. */
    async restocked(orderId: string) {
      return (await this.order(orderId)).items.map((item) => item.restockedQuantity);
    }
  };
}

export const stockOf = async (app: TestApp, variantId: string) =>
  (await app.ctx.db('productVariants').where({ id: variantId }).first('inventoryQuantity')).inventoryQuantity as number;

/** Units the ledger says came back to a variant from its orders (every restock writes one row). */
export const ledgerRestocks = async (app: TestApp, variantId: string) =>
  Number(
    (
      await app.ctx
        .db('inventoryLedger')
        .where({ variantId })
        .where((q) => q.where('reason', 'like', 'order #%').orWhere('reason', 'return received'))
        .where('delta', '>', 0)
        .sum({ sum: 'delta' })
        .first()
    )?.sum ?? 0
  );
