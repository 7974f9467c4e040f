import t from 'tap';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { methodsOf, sellable, setupShop } from '../../helpers/checkout.js';
import { orderOps, stockOf } from '../../helpers/order-ops.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

t.test('order edits: a line added, a quantity lowered, shipping changed; the difference collected, then another refunded; stock exact after each', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url, ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const hook = await app.request({ method: 'POST', url: '/admin/store/webhooks', payload: { url: 'http://127.0.0.1:9/hook', topics: ['order.updated'] }, ...admin(owner) });
  t.equal(hook.status, 201, hook.raw);
  const product = await sellable(app, owner, 'Shirt', [
    { price: 2000, stock: 10 },
    { price: 3000, stock: 10 }
  ]);
  const [s0, s1] = product.variants;
  const ops = orderOps(app, owner);
  const order = await ops.paidOrder([{ variantId: s0!.id, quantity: 2 }], 'edit@example.com');
  const post = (url: string, payload: unknown, who = owner, headers: Record<string, string> = {}) =>
    app.request({ method: 'POST', url, payload, headers, token: who.accessToken, storeId: who === stranger ? who.store.id : owner.store.id });
  const stranger = await signupOwner(app);
  t.equal(await stockOf(app, s0!.id), 8);
  const line = order.items[0]!.id;

  // Preview: S1 x2 added, S0 lowered to 1, Standard shipping: nothing written.
  const edit = { add: [{ variantId: s1!.id, quantity: 2 }], change: [{ orderItemId: line, quantity: 1 }], shippingRateId: methodsOf(owner).standard };
  const preview = await post(`/admin/orders/${order.id}/edits?dryRun=true`, edit);
  t.equal(preview.status, 200, preview.raw);
  t.match(preview.body.data.edit, { difference: 3000, totals: { subtotal: 8000, discountTotal: 0, shippingTotal: 500, total: 8500 }, before: { total: 5500 }, version: 1 });
  t.equal(await stockOf(app, s1!.id), 10, 'a preview moves no stock');

  // A paid order's higher total must say how it is collected.
  const uncollected = await post(`/admin/orders/${order.id}/edits`, edit);
  t.equal(uncollected.status, 422);
  t.equal(uncollected.body.error.details[0].path, 'collect');

  const committed = await post(`/admin/orders/${order.id}/edits`, { ...edit, collect: 'mark_paid', version: 1, notifyCustomer: true }, owner, { 'idempotency-key': 'edit-1' });
  t.equal(committed.status, 201, committed.raw);
  t.match(committed.body.data.edit, { difference: 3000, version: 2, refund: null });
  t.match(committed.body.data.order, { total: 8500, subtotal: 8000, shippingTotal: 500, paymentStatus: 'paid', shippingMethod: { id: methodsOf(owner).standard, name: 'Standard', price: 500 } });
  t.equal(await stockOf(app, s0!.id), 9, 'one S0 back');
  t.equal(await stockOf(app, s1!.id), 8, 'two S1 taken');
  const replay = await post(`/admin/orders/${order.id}/edits`, { ...edit, collect: 'mark_paid', version: 1, notifyCustomer: true }, owner, { 'idempotency-key': 'edit-1' });
  t.equal(replay.status, 201);
  t.equal(replay.headers['idempotent-replayed'], 'true', 'a retried edit is not applied twice');
  t.equal(await stockOf(app, s1!.id), 8);
  const mail = await smtp.waitFor((m) => m.envelopeTo.includes('edit@example.com') && /changed/.test(m.parsed.subject ?? ''));
  t.match(mail.parsed.text, /\+30\.00 USD/);

  // A stale version is 409; staff may not make a change that refunds.
  t.equal((await post(`/admin/orders/${order.id}/edits`, { change: [{ orderItemId: line, quantity: 2 }], version: 1 })).status, 409);
  const s1Line = committed.body.data.order.items.find((item: { variantId: string }) => item.variantId === s1!.id).id as string;
  const staff = await addMember(app, owner.store.id, 'staff');
  const staffRefund = await post(`/admin/orders/${order.id}/edits`, { change: [{ orderItemId: s1Line, quantity: 1 }] }, staff);
  t.equal(staffRefund.status, 403);
  t.equal(await stockOf(app, s1!.id), 8, 'the refused edit moved nothing');

  // Lower: one S1 less, 3000 refunded (manual order: recorded), not counted as refunded of the smaller total.
  const lowered = await post(`/admin/orders/${order.id}/edits`, { change: [{ orderItemId: s1Line, quantity: 1 }], version: 2 });
  t.equal(lowered.status, 201, lowered.raw);
  t.match(lowered.body.data.edit, { difference: -3000, version: 3, refund: { status: 'succeeded', amount: 3000 } });
  t.match(lowered.body.data.order, { total: 5500, paymentStatus: 'paid', amountRefunded: 0 });
  t.equal(await stockOf(app, s1!.id), 9);
  t.equal(await stockOf(app, s0!.id), 9);

  // Timeline: each change with its actor; webhooks: order.updated with growing versions.
  const timeline = (await app.request({ url: `/admin/orders/${order.id}/timeline?limit=50`, ...admin(owner) })).body.data.events as Array<{ type: string; actor: { userId: string | null }; data: any }>;
  const edited = timeline.filter((e) => e.type === 'edited');
  t.equal(edited.length, 2);
  t.ok(edited.every((e) => e.actor.userId === owner.user.id));
  t.ok(timeline.some((e) => e.type === 'refunded' && e.data.source === 'edit' && e.data.amount === 3000));
  t.ok(timeline.some((e) => e.type === 'paid' && e.data.amount === 3000));
  const events = await app.ctx.db('webhookEvents').where({ storeId: owner.store.id, topic: 'order.updated', resourceId: order.id }).orderBy('seq');
  t.equal(events.length, 2, 'order.updated per edit');
  t.ok(Number(events[1].seq) > Number(events[0].seq), 'a higher version each time');
  t.equal(events[1].data.total, 5500);

  // Refunds never exceed what was paid: 5500 + 3000 collected, 3000 given back: 5500 left.
  const tooMuch = await post(`/admin/orders/${order.id}/refunds`, { amount: 5501, reason: 'test', notifyCustomer: false });
  t.equal(tooMuch.status, 409);
  const rest = await post(`/admin/orders/${order.id}/refunds`, { amount: 5500, reason: 'test', notifyCustomer: false });
  t.equal(rest.status, 201, rest.raw);
  t.match(rest.body.data.order, { paymentStatus: 'refunded', amountRefunded: 5500 });

  // Shipped lines no longer change.
  const second = await ops.paidOrder([{ variantId: s0!.id, quantity: 1 }], 'shipped@example.com');
  t.equal((await ops.fulfil(second.id)).status, 201);
  const shipped = await post(`/admin/orders/${second.id}/edits`, { change: [{ orderItemId: second.items[0]!.id, quantity: 2 }] });
  t.equal(shipped.status, 409);
  t.equal(shipped.body.error.code, 'already_fulfilled');
  const outOfStock = await post(`/admin/orders/${second.id}/edits`, { add: [{ variantId: s1!.id, quantity: 50 }], collect: 'mark_paid' });
  t.equal(outOfStock.status, 409);
  t.equal(outOfStock.body.error.code, 'insufficient_inventory');
  t.match(outOfStock.body.error.message, /Shirt - S1/);
  t.equal((await post(`/admin/orders/${second.id}/edits?dryRun=true`, { remove: [second.items[0]!.id] }, stranger)).status, 404);
});

t.test('racing edits and fulfilments never leave stock or money inconsistent', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Mug', [{ price: 1000, stock: 100 }]);
  const variantId = product.variants[0]!.id;
  const ops = orderOps(app, owner);
  const post = (url: string, payload: unknown) => app.request({ method: 'POST', url, payload, ...admin(owner) });

  for (let round = 0; round < 4; round += 1) {
    const order = await ops.paidOrder([{ variantId, quantity: 3 }], `race${round}@example.com`);
    const line = order.items[0]!.id;
    // Two edits from the same version and a fulfilment, at once.
    const [a, b, f] = await Promise.all([
      post(`/admin/orders/${order.id}/edits`, { change: [{ orderItemId: line, quantity: 1 }], version: 1 }),
      post(`/admin/orders/${order.id}/edits`, { change: [{ orderItemId: line, quantity: 5 }], version: 1, collect: 'mark_paid' }),
      post(`/admin/orders/${order.id}/fulfillments`, { notifyCustomer: false })
    ]);
    const statuses = [a.status, b.status, f.status];
    t.ok(statuses.every((s) => s === 201 || s === 409), statuses.join(','));
    t.ok(a.status !== 201 || b.status !== 201, 'two edits of one version: at most one applies');
    const row = await app.ctx.db('orders').where({ id: order.id }).first();
    const items = await app.ctx.db('orderItems').where({ orderId: order.id });
    t.ok(items.every((item: { fulfilledQuantity: number; quantity: number }) => item.fulfilledQuantity <= item.quantity));
    const units = items.reduce((sum: number, item: { quantity: number }) => sum + item.quantity, 0);
    t.equal(Number(row.total), units * 1000 + (units * 1000 >= 10_000 ? 0 : 1500), 'the total is the lines priced');
    const refunds = await app.ctx.db('orderRefunds').where({ orderId: order.id, status: 'succeeded' }).sum({ sum: 'amount' }).first();
    const collected = (await app.ctx.db('orderEvents').where({ orderId: order.id, type: 'paid' })).reduce((sum: number, e: { data: { amount?: number } }) => sum + (e.data.amount ?? 0), 0);
    t.equal(4500 + collected - Number(refunds?.sum ?? 0), Number(row.total), 'paid less refunded is the total');
  }
  // Stock: exactly what the orders hold now.
  const held = await app.ctx.db('orderItems').where({ storeId: owner.store.id, variantId }).sum({ sum: 'quantity' }).first();
  t.equal(await stockOf(app, variantId), 100 - Number(held!.sum), 'stock exact');
  const ledger = await app.ctx.db('inventoryLedger').where({ variantId }).sum({ sum: 'delta' }).first();
  t.equal(Number(ledger!.sum), await stockOf(app, variantId), 'the ledger adds up to the stock');
});
