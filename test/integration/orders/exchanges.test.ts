import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { orderOps, stockOf } from '../../helpers/order-ops.js';
import { connectStripe, startStripeServer } from '../../helpers/stripe-server.js';

t.test('exchanges: a size swapped after delivery (restocked once, the new size ships as a new fulfilment), the difference collected or refunded through Stripe', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0', ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const hook = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: 'http://127.0.0.1:9/hook', topics: ['order.updated'] }, ...admin(owner) });
  t.equal(hook.status, 201, hook.raw);
  const product = await sellable(app, owner, 'Boot', [
    { price: 5000, stock: 5 },
    { price: 6000, stock: 5 },
    { price: 4000, stock: 5 }
  ]);
  const [m, l, s] = product.variants;
  const ops = orderOps(app, owner);
  const post = (url: string, payload: unknown) => app.request({ method: 'POST', url, payload, ...admin(owner) });

  // A manual order, shipped; the customer wants the larger size (1000 more, collected by hand).
  const order = await ops.paidOrder([{ variantId: m!.id, quantity: 1 }], 'swap@example.com');
  t.equal((await ops.fulfil(order.id)).status, 201);
  const itemId = order.items[0]!.id;
  const exchange = { returnItems: [{ orderItemId: itemId, quantity: 1, restock: true }], newItems: [{ variantId: l!.id, quantity: 1 }] };
  const preview = await post(`/admin/orders/${order.id}/exchanges?dryRun=true`, exchange);
  t.equal(preview.status, 200, preview.raw);
  t.match(preview.body.data.edit, { difference: 1000, totals: { subtotal: 6000 } });
  t.equal((await post(`/admin/orders/${order.id}/exchanges`, exchange)).status, 422, 'a paid order says how the difference is collected');
  const swapped = await post(`/admin/orders/${order.id}/exchanges`, { ...exchange, collect: 'mark_paid' });
  t.equal(swapped.status, 201, swapped.raw);
  const after = swapped.body.data.order;
  t.match(after, { status: 'open', fulfillmentStatus: 'partially_fulfilled', subtotal: 6000, paymentStatus: 'paid' });
  t.match(after.items, [
    { id: itemId, variantId: m!.id, quantity: 1, fulfilledQuantity: 1, returnedQuantity: 1, restockedQuantity: 1 },
    { variantId: l!.id, quantity: 1, fulfilledQuantity: 0 }
  ]);
  t.equal(await stockOf(app, m!.id), 5, 'the returned size is back on the shelf');
  t.equal(await stockOf(app, l!.id), 4, 'the new size is taken');

  // The returned unit cannot come back twice: a return or a second exchange of it is refused, nothing restocked again.
  const again = await post(`/admin/orders/${order.id}/exchanges`, { ...exchange, collect: 'mark_paid' });
  t.equal(again.status, 409);
  const returned = await ops.requestReturn(order.id, [{ orderItemId: itemId, quantity: 1 }]);
  t.not(returned.status, 201, 'a return of the exchanged unit is refused');
  t.equal(await stockOf(app, m!.id), 5);
  const refundExchanged = await post(`/admin/orders/${order.id}/refunds`, { items: [{ orderItemId: itemId, quantity: 1 }], reason: 'test', notifyCustomer: false });
  t.equal(refundExchanged.status, 409, 'the exchanged unit is no longer billed: nothing of it to refund');

  // The new size ships as a new fulfilment of the same order.
  const shipped = await ops.fulfil(order.id);
  t.equal(shipped.status, 201, shipped.raw);
  t.same(shipped.body.data.fulfillment.items.map((i: { quantity: number }) => i.quantity), [1]);
  t.match(shipped.body.data.order, { fulfillmentStatus: 'fulfilled', status: 'completed' });
  const timeline = (await app.request({ url: `/admin/orders/${order.id}/timeline?limit=50`, ...admin(owner) })).body.data.events as Array<{ type: string; data: any }>;
  t.ok(timeline.some((e) => e.type === 'exchanged' && e.data.difference === 1000));
  t.equal((await app.ctx.db('webhookEvents').where({ resourceId: order.id, topic: 'order.updated' })).length, 1);

  // A Stripe order swapped for a cheaper size: the difference goes back through Stripe, once.
  const accountId = await connectStripe(app, stripe, owner);
  t.ok(accountId);
  const { session } = await openSession(app, owner, [{ variantId: m!.id, quantity: 1 }], { email: 'card@example.com' });
  t.equal(session.status, 201, session.raw);
  const intentId = [...stripe.intents.keys()].pop()!;
  stripe.setIntentStatus(intentId, 'succeeded');
  const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
  t.equal(confirmed.status, 200, confirmed.raw);
  const card = confirmed.body.data.order;
  t.match(card, { paymentProvider: 'stripe', paymentStatus: 'paid', total: 6500 });
  t.equal((await ops.fulfil(card.id)).status, 201);
  const cheaper = await post(`/admin/orders/${card.id}/exchanges`, { returnItems: [{ orderItemId: card.items[0].id, quantity: 1, restock: false }], newItems: [{ variantId: s!.id, quantity: 1 }] });
  t.equal(cheaper.status, 201, cheaper.raw);
  t.match(cheaper.body.data.edit, { difference: -1000, refund: { status: 'succeeded', amount: 1000 } });
  t.equal(stripe.refundedOf(intentId), 1000, 'Stripe refunded the difference');
  t.match(cheaper.body.data.order, { total: 5500, paymentStatus: 'paid', amountRefunded: 0 });
  t.equal(await stockOf(app, m!.id), 4, 'not restocked: restock was false');
  // What is left to refund is what is left of the payment: 6500 paid, 1000 back.
  const all = await post(`/admin/orders/${card.id}/refunds`, { amount: 5500, reason: 'test', notifyCustomer: false });
  t.equal(all.status, 201, all.raw);
  t.equal(stripe.refundedOf(intentId), 6500, 'never more than was paid');
  t.equal((await post(`/admin/orders/${card.id}/refunds`, { amount: 1, reason: 'test', notifyCustomer: false })).status, 409);
});
