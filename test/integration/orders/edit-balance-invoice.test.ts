import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { deliverStripeEvent as deliver, stripeEvent as event, stripeEventHandled as processed } from '../../helpers/stripe-events.js';
import { sealAudit } from '../../helpers/audit.js';
import { admin } from '../../helpers/catalog.js';
import { sellable, setupShop } from '../../helpers/checkout.js';
import { orderOps } from '../../helpers/order-ops.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';
import { connectStripe, startStripeServer } from '../../helpers/stripe-server.js';

const tokenOf = (url: string) => url.split('/public/invoices/')[1]!;

t.test('an edit’s higher total collected by payment link: emailed, paid twice, the balance paid once and the second payment refunded in full', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks', 'email'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0', SMTP_URL: smtp.url, ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true' } });
  const owner = await signupOwner(app, { storeName: 'Link Shop' });
  await setupShop(app, owner);
  const hook = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: 'http://127.0.0.1:9/hook', topics: ['order.updated'] }, ...admin(owner) });
  t.equal(hook.status, 201, hook.raw);
  const product = await sellable(app, owner, 'Scarf', [
    { price: 2000, stock: 10 },
    { price: 2500, stock: 10 }
  ]);
  const [s0, s1] = product.variants;
  const order = await orderOps(app, owner).paidOrder([{ variantId: s0!.id, quantity: 1 }], 'link@example.com');
  const accountId = await connectStripe(app, stripe, owner);
  const post = (url: string, payload: unknown) => app.request({ method: 'POST', url, payload, ...admin(owner) });

  // collect: invoice: the edit commits, the difference is owed through a link emailed to the customer.
  const edited = await post(`/admin/orders/${order.id}/edits`, { add: [{ variantId: s1!.id, quantity: 1 }], collect: 'invoice' });
  t.equal(edited.status, 201, edited.raw);
  t.match(edited.body.data.edit, { difference: 2500, invoice: { amount: 2500, status: 'open' } });
  t.match(edited.body.data.order, { total: 1500 + 4500, paymentStatus: 'paid' });
  const url = edited.body.data.edit.invoice.url as string;
  t.match(url, /\/api\/v1\/public\/invoices\/[\w-]+\.[\w-]+$/);
  const mail = await smtp.waitFor((m) => m.envelopeTo.includes('link@example.com') && /changed/.test(m.parsed.subject ?? ''));
  t.ok(mail.parsed.text?.includes(url), 'the email carries the payment link');
  const stored = await app.ctx.db('orderBalanceInvoices').where({ storeId: owner.store.id, orderId: order.id }).first();
  t.not(stored.tokenHash, tokenOf(url), 'the token is stored hashed');

  // While the balance is unpaid the order does not change again (one link at a time).
  t.equal((await post(`/admin/orders/${order.id}/edits?dryRun=true`, { add: [{ variantId: s0!.id, quantity: 1 }] })).status, 409);

  // The public page: the draft invoices' page, for the balance.
  const page = await app.request({ url: `/public/invoices/${tokenOf(url)}` });
  t.equal(page.status, 200, page.raw);
  t.match(page.body.data, { invoice: { kind: 'order_balance', status: 'open', total: 2500, currency: 'USD', orderNumber: `#${edited.body.data.order.number}` }, store: { name: 'Link Shop' } });

  // Two tabs, two payments, both succeed; the first event is delivered twice.
  const first = await app.request({ method: 'POST', url: `/public/invoices/${tokenOf(url)}/pay` });
  const second = await app.request({ method: 'POST', url: `/public/invoices/${tokenOf(url)}/pay` });
  t.equal(first.status, 200, first.raw);
  t.equal(second.status, 200, second.raw);
  t.equal(first.body.data.payment.amount, 2500);
  const firstIntent = stripe.setIntentStatus(first.body.data.payment.paymentIntentId, 'succeeded');
  const secondIntent = stripe.setIntentStatus(second.body.data.payment.paymentIntentId, 'succeeded');
  t.equal(firstIntent.account, accountId);
  const firstEvent = event('payment_intent.succeeded', { ...firstIntent }, accountId);
  const secondEvent = event('payment_intent.succeeded', { ...secondIntent }, accountId);
  const deliveries = await Promise.all([deliver(app, firstEvent), deliver(app, secondEvent), deliver(app, firstEvent)]);
  t.same(deliveries.map((r) => r.status), [200, 200, 200]);
  await processed(app, firstEvent.id);
  await processed(app, secondEvent.id);

  const paid = await app.ctx.db('orderBalanceInvoices').where({ storeId: owner.store.id, id: stored.id }).first();
  t.equal(paid.status, 'paid');
  const kept = paid.paymentIntentId as string;
  const other = kept === firstIntent.id ? secondIntent.id : firstIntent.id;
  t.same(paid.refundedIntents, [other], 'the other payment is recorded refunded');
  t.equal(stripe.refundedOf(other), 2500, 'refunded in full on Stripe');
  t.equal(stripe.refundedOf(kept), 0, 'the kept payment is untouched');
  // A replay of a processed event changes nothing more.
  const replay = event('payment_intent.succeeded', { ...secondIntent }, accountId);
  await deliver(app, replay);
  await processed(app, replay.id);
  t.equal(stripe.refundedOf(other), 2500, 'refunded once');

  // Timeline and webhooks: the edit, the link, the balance paid once, the duplicate refunded.
  const timeline = (await app.request({ url: `/admin/orders/${order.id}/timeline?limit=50`, ...admin(owner) })).body.data.events as Array<{ type: string; data: any }>;
  t.equal(timeline.filter((e) => e.type === 'balance_invoiced' && e.data.amount === 2500).length, 1);
  t.equal(timeline.filter((e) => e.type === 'paid' && e.data.balanceInvoiceId === stored.id && e.data.amount === 2500).length, 1, 'paid once');
  t.equal(timeline.filter((e) => e.type === 'duplicate_payment_refunded').length, 1);
  const hooks = await app.ctx.db('webhookEvents').where({ storeId: owner.store.id, topic: 'order.updated', resourceId: order.id });
  t.equal(hooks.length, 2, 'order.updated for the edit and for the balance paid');

  // Paid: the page says so, paying again is refused before any charge, the order changes again.
  t.match((await app.request({ url: `/public/invoices/${tokenOf(url)}` })).body.data.invoice, { status: 'paid' });
  t.equal((await app.request({ method: 'POST', url: `/public/invoices/${tokenOf(url)}/pay` })).status, 409);
  t.equal((await post(`/admin/orders/${order.id}/edits?dryRun=true`, { add: [{ variantId: s0!.id, quantity: 1 }] })).status, 200);

  // Backward compatible: collect: mark_paid still records the difference as collected by hand.
  const byHand = await post(`/admin/orders/${order.id}/edits`, { add: [{ variantId: s0!.id, quantity: 1 }], collect: 'mark_paid' });
  t.equal(byHand.status, 201, byHand.raw);
  t.match(byHand.body.data.edit, { difference: 2000, invoice: null });
  t.equal((await post(`/admin/orders/${order.id}/edits`, { add: [{ variantId: s0!.id, quantity: 1 }], collect: 'later' })).status, 422);
});

t.test('a balance link voided by hand: the page is 410, paying is refused, a payment already made is refunded; a void racing a payment has one winner', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { workers: ['webhooks'], env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0', ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true' } });
  const owner = await signupOwner(app, { storeName: 'Void Shop' });
  await setupShop(app, owner);
  const hook = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: 'http://127.0.0.1:9/hook', topics: ['order.updated'] }, ...admin(owner) });
  t.equal(hook.status, 201, hook.raw);
  const product = await sellable(app, owner, 'Glove', [
    { price: 1000, stock: 50 },
    { price: 1200, stock: 50 }
  ]);
  const [g0, g1] = product.variants;
  const staff = await addMember(app, owner.store.id, 'staff');
  const asStaff = { token: staff.accessToken, storeId: owner.store.id };
  const ops = orderOps(app, owner);
  // Manual orders, marked paid, made before the store connects Stripe (the links pay through it).
  const order = await ops.paidOrder([{ variantId: g0!.id, quantity: 1 }], 'void@example.com');
  const other = await ops.paidOrder([{ variantId: g0!.id, quantity: 1 }], 'other@example.com');
  const racedOrders = [];
  for (let round = 0; round < 4; round += 1) racedOrders.push(await ops.paidOrder([{ variantId: g0!.id, quantity: 1 }], `race${round}@example.com`));
  const accountId = await connectStripe(app, stripe, owner);
  const edited = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/edits`, payload: { add: [{ variantId: g1!.id, quantity: 1 }], collect: 'invoice' }, ...admin(owner) });
  t.equal(edited.status, 201, edited.raw);
  const invoiceId = edited.body.data.edit.invoice.id as string;
  const token = tokenOf(edited.body.data.edit.invoice.url);
  // A payment started before the void (the customer's tab is open).
  const started = await app.request({ method: 'POST', url: `/public/invoices/${token}/pay` });
  t.equal(started.status, 200, started.raw);

  const voidUrl = (orderId: string, id: string) => `/admin/orders/${orderId}/balance-invoices/${id}/void`;
  // Another order's id with this invoice is 404; staff (who may edit orders) may void.
  t.equal((await app.request({ method: 'POST', url: voidUrl(other.id, invoiceId), ...admin(owner) })).status, 404);
  const voided = await app.request({ method: 'POST', url: voidUrl(order.id, invoiceId), headers: { 'idempotency-key': 'void-1' }, ...asStaff });
  t.equal(voided.status, 200, voided.raw);
  t.match(voided.body.data, { invoice: { id: invoiceId, status: 'void', amount: 1200 }, order: { id: order.id } });
  const again = await app.request({ method: 'POST', url: voidUrl(order.id, invoiceId), ...admin(owner) });
  t.equal(again.status, 200, 'a repeat answers the void invoice');
  t.equal(again.body.data.invoice.status, 'void');

  const page = await app.request({ url: `/public/invoices/${token}` });
  t.equal(page.status, 410, page.raw);
  t.equal(page.body.error.code, 'invoice_void');
  t.equal((await app.request({ method: 'POST', url: `/public/invoices/${token}/pay` })).status, 410, 'no new payment');
  // The payment started before the void succeeds anyway: refunded in full, the balance stays void.
  const late = stripe.setIntentStatus(started.body.data.payment.paymentIntentId, 'succeeded');
  const lateEvent = event('payment_intent.succeeded', { ...late }, accountId);
  await deliver(app, lateEvent);
  await processed(app, lateEvent.id);
  t.equal(stripe.refundedOf(late.id), 1200, 'the late payment is refunded in full');
  t.equal((await app.ctx.db('orderBalanceInvoices').where({ storeId: owner.store.id, id: invoiceId }).first()).status, 'void');

  const timeline = (await app.request({ url: `/admin/orders/${order.id}/timeline?limit=50`, ...admin(owner) })).body.data.events as Array<{ type: string; data: any; actor: any }>;
  t.equal(timeline.filter((e) => e.type === 'balance_voided' && e.data.balanceInvoiceId === invoiceId).length, 1, 'voided once on the timeline');
  const hooks = await app.ctx.db('webhookEvents').where({ storeId: owner.store.id, topic: 'order.updated', resourceId: order.id });
  t.equal(hooks.length, 2, 'order.updated for the edit and for the void (not for the repeat)');
  await sealAudit(app, owner.store.id);
  const audit = await app.ctx.db('auditLog').where({ storeId: owner.store.id, action: 'order.balance_voided', resourceId: order.id });
  t.equal(audit.length, 1, 'audited once (the repeat changed nothing)');
  // The order may change again: no link is open.
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/edits?dryRun=true`, payload: { add: [{ variantId: g0!.id, quantity: 1 }] }, ...admin(owner) })).status, 200);

  // A void racing the payment's event: exactly one wins, whichever it is.
  for (const [round, raced] of racedOrders.entries()) {
    const edit = await app.request({ method: 'POST', url: `/admin/orders/${raced.id}/edits`, payload: { add: [{ variantId: g1!.id, quantity: 1 }], collect: 'invoice' }, ...admin(owner) });
    t.equal(edit.status, 201, edit.raw);
    const id = edit.body.data.edit.invoice.id as string;
    const pay = await app.request({ method: 'POST', url: `/public/invoices/${tokenOf(edit.body.data.edit.invoice.url)}/pay` });
    const intent = stripe.setIntentStatus(pay.body.data.payment.paymentIntentId, 'succeeded');
    const paidEvent = event('payment_intent.succeeded', { ...intent }, accountId);
    const [, voidAnswer] = await Promise.all([deliver(app, paidEvent), app.request({ method: 'POST', url: voidUrl(raced.id, id), ...admin(owner) })]);
    await processed(app, paidEvent.id);
    const row = await app.ctx.db('orderBalanceInvoices').where({ storeId: owner.store.id, id }).first();
    if (voidAnswer.status === 200) {
      t.equal(row.status, 'void', `round ${round}: the void won`);
      t.equal(stripe.refundedOf(intent.id), 1200, 'the payment is refunded in full');
    } else {
      t.equal(voidAnswer.status, 409, voidAnswer.raw);
      t.equal(row.status, 'paid', `round ${round}: the payment won`);
      t.equal(stripe.refundedOf(intent.id), 0, 'the payment is kept');
    }
  }
});

t.test('money a balance link never collected is nobody’s to refund: refunds and a cancel leave an open link’s amount out; an edit back after a void takes the voided amount back first', async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const owner = await signupOwner(app, { storeName: 'Owed Shop' });
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Hat', [
    { price: 2000, stock: 50 },
    { price: 2500, stock: 50 }
  ]);
  const [h0, h1] = product.variants;
  const ops = orderOps(app, owner);
  const open = await ops.paidOrder([{ variantId: h0!.id, quantity: 1 }], 'open@example.com');
  const cancelled = await ops.paidOrder([{ variantId: h0!.id, quantity: 1 }], 'cancel@example.com');
  const voided = await ops.paidOrder([{ variantId: h0!.id, quantity: 2 }], 'void@example.com');
  await connectStripe(app, stripe, owner);
  const post = (url: string, payload: unknown) => app.request({ method: 'POST', url, payload, ...admin(owner) });
  const totalOf = async (orderId: string) => (await app.request({ url: `/admin/orders/${orderId}`, ...admin(owner) })).body.data.order.total as number;
  const owe = async (orderId: string) => {
    const paid = await totalOf(orderId);
    const edited = await post(`/admin/orders/${orderId}/edits`, { add: [{ variantId: h1!.id, quantity: 1 }], collect: 'invoice', notifyCustomer: false });
    t.equal(edited.status, 201, edited.raw);
    return { paid, owed: edited.body.data.edit.difference as number, invoiceId: edited.body.data.edit.invoice.id as string };
  };

  // An open link: its amount is in the total, not in what was paid.
  const first = await owe(open.id);
  t.ok(first.owed > 0);
  t.equal(await totalOf(open.id), first.paid + first.owed);
  const preview = await post(`/admin/orders/${open.id}/refunds?dryRun=true`, { amount: 100, reason: 'test' });
  t.equal(preview.status, 200, preview.raw);
  t.equal(preview.body.data.preview.refundable, first.paid, 'what is left to refund is what was paid');
  const over = await post(`/admin/orders/${open.id}/refunds`, { amount: first.paid + 1, reason: 'test', notifyCustomer: false });
  t.equal(over.status, 409, over.raw);
  t.equal(over.body.error.code, 'refund_exceeds_payment');
  // Eight refunds of a quarter of what was paid, at once: four go through, the rest find nothing left.
  const quarter = first.paid / 4;
  t.ok(Number.isInteger(quarter), `a quarter of ${first.paid}`);
  const raced = await Promise.all(Array.from({ length: 8 }, () => post(`/admin/orders/${open.id}/refunds`, { amount: quarter, reason: 'test', notifyCustomer: false })));
  t.same(raced.map((r) => r.status).sort(), [201, 201, 201, 201, 409, 409, 409, 409], 'four refunds, four refused');
  const afterRace = (await app.request({ url: `/admin/orders/${open.id}`, ...admin(owner) })).body.data.order;
  t.equal(afterRace.amountRefunded, first.paid, 'refunded exactly what was paid, not a cent of the open link');

  // A cancel with a link open gives back what was paid and voids the link.
  const second = await owe(cancelled.id);
  const cancel = await ops.cancel(cancelled.id);
  t.equal(cancel.status, 200, cancel.raw);
  t.match(cancel.body.data.order, { status: 'cancelled', amountRefunded: second.paid, paymentStatus: 'partially_refunded' });
  t.equal((await app.ctx.db('orderBalanceInvoices').where({ storeId: owner.store.id, id: second.invoiceId }).first()).status, 'void');

  // A voided link, then the edit taken back: nothing to refund, the voided amount is taken back.
  const third = await owe(voided.id);
  t.equal((await post(`/admin/orders/${voided.id}/balance-invoices/${third.invoiceId}/void`, {})).status, 200);
  t.equal((await post(`/admin/orders/${voided.id}/refunds?dryRun=true`, { amount: 100, reason: 'test' })).body.data.preview.refundable, third.paid, 'voided: still never paid');
  const lines = (await app.request({ url: `/admin/orders/${voided.id}`, ...admin(owner) })).body.data.order.items as Array<{ id: string; variantId: string }>;
  const added = lines.find((line) => line.variantId === h1!.id)!.id;
  const original = lines.find((line) => line.variantId === h0!.id)!.id;
  const back = await post(`/admin/orders/${voided.id}/edits`, { remove: [added], notifyCustomer: false });
  t.equal(back.status, 201, back.raw);
  t.equal(back.body.data.edit.difference, -third.owed);
  t.equal(back.body.data.edit.refund, null, 'no refund: the customer never paid the voided link');
  t.match(back.body.data.order, { total: third.paid, amountRefunded: 0, paymentStatus: 'paid' });
  const timeline = (await app.request({ url: `/admin/orders/${voided.id}/timeline`, ...admin(owner) })).body.data.events as Array<{ type: string; data: Record<string, unknown> }>;
  t.ok(timeline.some((e) => e.type === 'edited' && e.data.uncollectedTakenBack === third.owed), 'the timeline says what was taken back');
  t.equal((await post(`/admin/orders/${voided.id}/refunds?dryRun=true`, { amount: 100, reason: 'test' })).body.data.preview.refundable, third.paid, 'all of what was paid is refundable again');

  // Owed again and voided again; an edit lowering the total by more than is owed refunds only the rest.
  const fourth = await owe(voided.id);
  t.equal((await post(`/admin/orders/${voided.id}/balance-invoices/${fourth.invoiceId}/void`, {})).status, 200);
  const again = (await app.request({ url: `/admin/orders/${voided.id}`, ...admin(owner) })).body.data.order.items as Array<{ id: string; variantId: string }>;
  const lowered = await post(`/admin/orders/${voided.id}/edits`, {
    remove: [again.find((line) => line.variantId === h1!.id)!.id],
    change: [{ orderItemId: original, quantity: 1 }],
    notifyCustomer: false
  });
  t.equal(lowered.status, 201, lowered.raw);
  const lowerBy = -lowered.body.data.edit.difference;
  t.ok(lowerBy > fourth.owed);
  t.match(lowered.body.data.edit.refund, { status: 'succeeded', amount: lowerBy - fourth.owed }, 'the owed part taken back, the rest refunded');
  const rows = await app.ctx.db('orderBalanceInvoices').where({ storeId: owner.store.id, orderId: voided.id }).orderBy('createdAt');
  t.same(
    rows.map((row: { status: string; amount: string; takenBack: string }) => [row.status, Number(row.takenBack) === Number(row.amount)]),
    [
      ['void', true],
      ['void', true]
    ],
    'each voided balance taken back once, in full'
  );
});
