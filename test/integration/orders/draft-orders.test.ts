import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { deliverStripeEvent as deliver, stripeEvent as event, stripeEventHandled as processed } from '../../helpers/stripe-events.js';
import { admin } from '../../helpers/catalog.js';
import { ADDRESS, methodsOf, sellable, setupShop } from '../../helpers/checkout.js';
import { stockOf } from '../../helpers/order-ops.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';
import { connectStripe, startStripeServer } from '../../helpers/stripe-server.js';

const tokenOf = (url: string) => url.split('/public/invoices/')[1]!;

t.test('draft orders: a phone order drafted, priced as a checkout, invoiced, paid twice through the link: one order, the second payment refunded', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks', 'email'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0', SMTP_URL: smtp.url, ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true' } });
  const owner = await signupOwner(app, { storeName: 'Phone Shop' });
  await setupShop(app, owner);
  const accountId = await connectStripe(app, stripe, owner);
  const hook = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: 'http://127.0.0.1:9/hook', topics: ['order.created', 'order.paid'] }, ...admin(owner) });
  t.equal(hook.status, 201, hook.raw);
  const product = await sellable(app, owner, 'Jacket', [
    { price: 4000, stock: 5 },
    { price: 4500, stock: 1 }
  ]);
  const [small, large] = product.variants;
  const discount = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: 'PHONE10', type: 'percentage', value: 10 }, ...admin(owner) });
  t.equal(discount.status, 201, discount.raw);
  const staff = await addMember(app, owner.store.id, 'staff');
  const asStaff = { token: staff.accessToken, storeId: owner.store.id };

  // Staff drafts a phone order: a variant, a custom line, a store rate, a code. Totals as a checkout's.
  const created = await app.request({
    method: 'POST',
    url: '/admin/draft-orders',
    payload: {
      email: 'Caller@Example.com',
      lines: [
        { variantId: small!.id, quantity: 2 },
        { title: 'Gift wrapping', price: 500, quantity: 1 }
      ],
      shippingAddress: ADDRESS,
      shippingRateId: methodsOf(owner).express,
      discountCode: 'phone10',
      note: 'called at 10:00',
      tags: ['phone']
    },
    ...asStaff
  });
  t.equal(created.status, 201, created.raw);
  const draft = created.body.data.draftOrder;
  t.match(draft, { status: 'open', email: 'caller@example.com', subtotal: 8500, discountTotal: 850, shippingTotal: 1500, total: 9150, discountCode: 'PHONE10', tags: ['phone'] });
  t.match(draft.lines, [{ variantId: small!.id, title: 'Jacket - S0', unitPrice: 4000, lineTotal: 8000 }, { variantId: null, title: 'Gift wrapping', lineTotal: 500 }]);
  t.equal(await stockOf(app, small!.id), 5, 'no stock is held while the draft is edited');

  // Bad input: 422, never 500; another store's draft: 404.
  const bad = await app.request({ method: 'POST', url: '/admin/draft-orders', payload: { email: 'x@example.com', lines: [{ variantId: '00000000-0000-4000-8000-000000000000', quantity: 1 }] }, ...asStaff });
  t.equal(bad.status, 422);
  t.equal(bad.body.error.details[0].path, 'lines.0.variantId');
  const both = await app.request({ method: 'POST', url: '/admin/draft-orders', payload: { email: 'x@example.com', shippingRateId: methodsOf(owner).express, customShipping: { title: 'Courier', price: 100 } }, ...asStaff });
  t.equal(both.status, 422);
  const stranger = await signupOwner(app);
  t.equal((await app.request({ url: `/admin/draft-orders/${draft.id}`, ...admin(stranger) })).status, 404);

  // Edited: custom shipping and a manual discount replace the rate and the code.
  const patched = await app.request({
    method: 'PATCH',
    url: `/admin/draft-orders/${draft.id}`,
    payload: { customShipping: { title: 'Courier', price: 700 }, manualDiscount: { type: 'fixed_amount', value: 1000 } },
    ...asStaff
  });
  t.equal(patched.status, 200, patched.raw);
  t.match(patched.body.data.draftOrder, { subtotal: 8500, discountTotal: 1000, shippingTotal: 700, total: 8200, discountCode: null, shipping: { rateId: null, title: 'Courier', price: 700 } });

  const list = await app.request({ url: '/admin/draft-orders?limit=1', ...asStaff });
  t.equal(list.status, 200);
  t.equal(list.body.data.draftOrders.length, 1);
  t.equal(list.body.meta.pagination.limit, 1);

  // Invoiced: the stock is held now, the customer gets the link.
  const invoiced = await app.request({ method: 'POST', url: `/admin/draft-orders/${draft.id}/complete`, payload: { payment: 'invoice' }, ...asStaff });
  t.equal(invoiced.status, 200, invoiced.raw);
  const url = invoiced.body.data.invoice.url as string;
  t.match(url, /\/api\/v1\/public\/invoices\/[\w-]+\.[\w-]+$/);
  t.equal(await stockOf(app, small!.id), 3, 'two units held at completion');
  const stored = await app.ctx.db('draftOrders').where({ id: draft.id }).first();
  t.equal(stored.status, 'invoiced');
  t.not(stored.invoiceTokenHash, tokenOf(url), 'the token is stored hashed');
  const mail = await smtp.waitFor((m) => m.envelopeTo.includes('caller@example.com') && /invoice/i.test(m.parsed.subject ?? ''));
  t.ok(mail.parsed.text?.includes(url), 'the email carries the same link');
  t.equal((await app.request({ method: 'PATCH', url: `/admin/draft-orders/${draft.id}`, payload: { note: 'late' }, ...asStaff })).status, 409, 'an invoiced draft no longer changes');

  // The public page.
  const page = await app.request({ url: `/public/invoices/${tokenOf(url)}` });
  t.equal(page.status, 200, page.raw);
  t.match(page.body.data, { invoice: { status: 'open', total: 8200, currency: 'USD' }, store: { name: 'Phone Shop' } });
  t.equal((await app.request({ url: `/public/invoices/${tokenOf(url)}x` })).status, 404, 'a tampered link is 404');

  // Two tabs: two PaymentIntents for exactly the total; both succeed.
  const first = await app.request({ method: 'POST', url: `/public/invoices/${tokenOf(url)}/pay` });
  const second = await app.request({ method: 'POST', url: `/public/invoices/${tokenOf(url)}/pay` });
  t.equal(first.status, 200, first.raw);
  t.equal(second.status, 200, second.raw);
  const firstIntent = stripe.setIntentStatus(first.body.data.payment.paymentIntentId, 'succeeded');
  const secondIntent = stripe.setIntentStatus(second.body.data.payment.paymentIntentId, 'succeeded');
  t.equal(firstIntent.amount, 8200);
  t.equal(firstIntent.account, accountId);
  const firstEvent = event('payment_intent.succeeded', { ...firstIntent }, accountId);
  const secondEvent = event('payment_intent.succeeded', { ...secondIntent }, accountId);
  const deliveries = await Promise.all([deliver(app, firstEvent), deliver(app, secondEvent), deliver(app, firstEvent)]);
  t.same(deliveries.map((r) => r.status), [200, 200, 200]);
  await processed(app, firstEvent.id);
  await processed(app, secondEvent.id);

  const orders = await app.ctx.db('orders').where({ storeId: owner.store.id });
  t.equal(orders.length, 1, 'one order');
  const order = orders[0];
  t.match(order, { paymentProvider: 'stripe', paymentStatus: 'paid', total: 8200, email: 'caller@example.com' });
  const payments = await app.ctx.db('draftOrderPayments').where({ draftOrderId: draft.id }).orderBy('status');
  t.same(payments.map((p: { status: string }) => p.status).sort(), ['kept', 'refunded'], 'one payment kept, the other refunded');
  const refunded = payments.find((p: { status: string }) => p.status === 'refunded');
  t.equal(order.paymentIntentId, payments.find((p: { status: string }) => p.status === 'kept').paymentIntentId);
  t.equal(stripe.refundedOf(refunded.paymentIntentId), 8200, 'the second payment is refunded in full on Stripe');
  t.equal(stripe.refundedOf(order.paymentIntentId), 0, 'the kept one is untouched');
  t.equal(await stockOf(app, small!.id), 3, 'the held stock became the order’s: taken once');

  // Paying a paid invoice is refused before any charge.
  const again = await app.request({ method: 'POST', url: `/public/invoices/${tokenOf(url)}/pay` });
  t.equal(again.status, 409);
  t.match((await app.request({ url: `/public/invoices/${tokenOf(url)}` })).body.data.invoice, { status: 'paid' });
  const done = await app.request({ url: `/admin/draft-orders/${draft.id}`, ...asStaff });
  t.match(done.body.data.draftOrder, { status: 'completed', orderId: order.id });
  t.equal((await app.request({ method: 'DELETE', url: `/admin/draft-orders/${draft.id}`, ...asStaff })).status, 409);

  // Timeline and webhooks.
  const timeline = await app.request({ url: `/admin/orders/${order.id}/timeline`, ...admin(owner) });
  t.equal(timeline.status, 200, timeline.raw);
  const types = timeline.body.data.events.map((e: { type: string }) => e.type);
  t.ok(types.includes('placed') && types.includes('draft_completed') && types.includes('duplicate_payment_refunded'), types.join(','));
  const topics = (await app.ctx.db('webhookEvents').where({ storeId: owner.store.id, resourceId: order.id })).map((e: { topic: string }) => e.topic).sort();
  t.same(topics, ['order.created', 'order.paid']);
  const item = (await app.request({ url: `/admin/orders/${order.id}`, ...admin(owner) })).body.data.order.items;
  t.match(item, [{ variantId: small!.id, quantity: 2 }, { variantId: null, title: 'Gift wrapping' }]);

  // Out of stock at completion: 409 naming the line, nothing held.
  const short = await app.request({
    method: 'POST',
    url: '/admin/draft-orders',
    payload: { email: 'short@example.com', lines: [{ variantId: small!.id, quantity: 1 }, { variantId: large!.id, quantity: 2 }], shippingAddress: ADDRESS },
    ...asStaff
  });
  t.equal(short.status, 201, short.raw);
  const refused = await app.request({ method: 'POST', url: `/admin/draft-orders/${short.body.data.draftOrder.id}/complete`, payload: { payment: 'pending' }, ...asStaff });
  t.equal(refused.status, 409);
  t.equal(refused.body.error.code, 'insufficient_inventory');
  t.match(refused.body.error.message, /Jacket - S1/);
  t.equal(await stockOf(app, small!.id), 3, 'nothing held for the refused draft');
  t.equal(await stockOf(app, large!.id), 1);

  // mark_paid: the order at once, paid by hand, with the actor on the timeline; idempotent by key.
  const fixed = await app.request({ method: 'PATCH', url: `/admin/draft-orders/${short.body.data.draftOrder.id}`, payload: { lines: [{ variantId: large!.id, quantity: 1 }] }, ...asStaff });
  t.equal(fixed.status, 200, fixed.raw);
  const key = { 'idempotency-key': 'complete-1' };
  const paid = await app.request({ method: 'POST', url: `/admin/draft-orders/${short.body.data.draftOrder.id}/complete`, payload: { payment: 'mark_paid' }, headers: key, ...asStaff });
  t.equal(paid.status, 200, paid.raw);
  t.match(paid.body.data.order, { paymentStatus: 'paid', paymentProvider: 'manual', total: 4500 });
  const replay = await app.request({ method: 'POST', url: `/admin/draft-orders/${short.body.data.draftOrder.id}/complete`, payload: { payment: 'mark_paid' }, headers: key, ...asStaff });
  t.equal(replay.status, 200);
  t.equal(replay.headers['idempotent-replayed'], 'true');
  t.equal(await stockOf(app, large!.id), 0);
  const events = (await app.ctx.db('orderEvents').where({ orderId: paid.body.data.order.id, type: 'paid' })) as Array<{ userId: string }>;
  t.equal(events[0]?.userId, staff.user.id, 'the member who marked it paid');

  // An invoiced draft deleted gives its stock back.
  const third = await app.request({ method: 'POST', url: '/admin/draft-orders', payload: { email: 'gone@example.com', lines: [{ variantId: small!.id, quantity: 3 }], shippingAddress: ADDRESS }, ...asStaff });
  const thirdInvoice = await app.request({ method: 'POST', url: `/admin/draft-orders/${third.body.data.draftOrder.id}/complete`, payload: { payment: 'invoice' }, ...asStaff });
  t.equal(thirdInvoice.status, 200);
  t.equal(await stockOf(app, small!.id), 0);
  const late = await app.request({ method: 'POST', url: `/public/invoices/${tokenOf(thirdInvoice.body.data.invoice.url)}/pay` });
  t.equal(late.status, 200, late.raw);
  t.equal((await app.request({ method: 'DELETE', url: `/admin/draft-orders/${third.body.data.draftOrder.id}`, ...asStaff })).status, 200);
  t.equal(await stockOf(app, small!.id), 3, 'stock back');
  t.equal((await app.request({ url: `/public/invoices/${tokenOf(thirdInvoice.body.data.invoice.url)}` })).status, 404, 'the link of a deleted draft is dead');
  // Its payment completed after the delete: no order, the money goes back.
  const lateIntent = stripe.setIntentStatus(late.body.data.payment.paymentIntentId, 'succeeded');
  const lateEvent = event('payment_intent.succeeded', { ...lateIntent }, accountId);
  t.equal((await deliver(app, lateEvent)).status, 200);
  await processed(app, lateEvent.id);
  t.equal(stripe.refundedOf(lateIntent.id), 12000, 'refunded in full');
  t.equal((await app.ctx.db('orders').where({ storeId: owner.store.id, email: 'gone@example.com' })).length, 0, 'no order');
});
