import t from 'tap';
import { addMember, buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, setupShop, sellable } from '../../helpers/checkout.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';
import { openEmailMessage } from '../../../src/services/email/sealed-message.js';

// One app for the tests without workers (issue #32); each signs up its own store, so none sees another's
// data. The first test (an email worker and a mail server) builds its own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('orders: list, get, partial fulfilments, already_fulfilled, emails with the tracking link', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'] });
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  await setupShop(app, owner, { email: { fromName: 'Shop', fromEmail: 'shop@shop.example', smtp: { host: '127.0.0.1', port: smtp.port } } });
  const staff = await addMember(app, owner.store.id, 'staff');
  const product = await sellable(app, owner, 'Chair', [{ price: 5000, stock: 50 }, { price: 7000, stock: 50 }]);
  const [a, b] = product.variants;

  const { session } = await openSession(app, owner, [{ variantId: a!.id, quantity: 3 }, { variantId: b!.id, quantity: 1 }], { email: 'ana@example.com' });
  const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
  const order = confirmed.body.data.order;
  const trackingUrl = confirmed.body.data.trackingUrl;
  const confirmation = await smtp.waitFor((m) => m.envelopeTo.includes('ana@example.com') && /confirmed/.test(m.parsed.subject ?? ''));
  t.match(confirmation.parsed.subject, /Order #1001 confirmed/);
  t.ok(confirmation.parsed.text?.includes(trackingUrl), 'the confirmation links the public tracking URL');

  for (let i = 0; i < 3; i++) {
    const extra = await openSession(app, owner, [{ variantId: a!.id, quantity: 1 }], { email: `bulk${i}@example.com` });
    await confirm(app, owner, extra.session.body.data.checkoutSession.id);
  }

  // List: newest first, keyset pages, filters, staff may read, tenancy.
  const page1 = await app.request({ url: '/admin/orders?limit=3', ...admin(owner) });
  t.equal(page1.status, 200);
  t.same(page1.body.data.orders.map((o: any) => o.number), [1004, 1003, 1002]);
  t.ok(page1.body.meta.pagination.nextCursor);
  const page2 = await app.request({ url: `/admin/orders?limit=3&cursor=${page1.body.meta.pagination.nextCursor}`, ...admin(owner) });
  t.same(page2.body.data.orders.map((o: any) => o.number), [1001]);
  t.equal(page2.body.meta.pagination.nextCursor, null);
  const byNumber = await app.request({ url: '/admin/orders?q=%231001', ...admin(owner) });
  t.same(byNumber.body.data.orders.map((o: any) => o.id), [order.id]);
  const byEmail = await app.request({ url: '/admin/orders?q=BULK1', ...admin(owner) });
  t.same(byEmail.body.data.orders.map((o: any) => o.email), ['bulk1@example.com']);
  const asStaff = await app.request({ url: '/admin/orders', token: staff.accessToken, storeId: owner.store.id });
  t.equal(asStaff.status, 200);
  t.equal(asStaff.body.data.orders.length, 4);
  const foreignList = await app.request({ url: '/admin/orders', ...admin(other) });
  t.same(foreignList.body.data.orders, []);
  const foreignGet = await app.request({ url: `/admin/orders/${order.id}`, ...admin(other) });
  t.equal(foreignGet.status, 404);
  for (const query of ['status=bogus', 'limit=0', 'limit=101', 'cursor=garbage']) {
    const bad = await app.request({ url: `/admin/orders?${query}`, ...admin(owner) });
    t.equal(bad.status, 422, query);
  }

  const got = await app.request({ url: `/admin/orders/${order.id}`, ...admin(owner) });
  t.equal(got.status, 200);
  t.equal(got.body.data.order.items.length, 2);
  t.equal(got.body.data.order.trackingUrl, trackingUrl);
  const [itemA, itemB] = got.body.data.order.items;

  // Partial fulfilment with tracking; the order becomes partially_fulfilled.
  const partial = await app.request({
    method: 'POST',
    url: `/admin/orders/${order.id}/fulfillments`,
    payload: { items: [{ orderItemId: itemA.id, quantity: 2 }], trackingCompany: 'UPS', trackingNumber: '1Z999', trackingUrl: 'https://ups.example/1Z999' },
    token: staff.accessToken,
    storeId: owner.store.id,
    headers: { 'idempotency-key': 'ship-1' }
  });
  t.equal(partial.status, 201, partial.raw);
  t.match(partial.body.data.fulfillment, { items: [{ orderItemId: itemA.id, quantity: 2 }], trackingCompany: 'UPS', trackingNumber: '1Z999', trackingUrl: 'https://ups.example/1Z999' });
  t.equal(partial.body.data.order.fulfillmentStatus, 'partially_fulfilled');
  const shipped = await smtp.waitFor((m) => m.envelopeTo.includes('ana@example.com') && /on its way/.test(m.parsed.subject ?? ''));
  t.ok(shipped.parsed.text?.includes('1Z999'));
  t.ok(shipped.parsed.text?.includes(trackingUrl), 'the shipping email links the public tracking URL');

  // The same Idempotency-Key replays the first fulfilment; another body with it is 422.
  const replay = await app.request({
    method: 'POST',
    url: `/admin/orders/${order.id}/fulfillments`,
    payload: { items: [{ orderItemId: itemA.id, quantity: 2 }], trackingCompany: 'UPS', trackingNumber: '1Z999', trackingUrl: 'https://ups.example/1Z999' },
    ...admin(owner),
    headers: { 'idempotency-key': 'ship-1' }
  });
  t.equal(replay.status, 201);
  t.equal(replay.body.data.fulfillment.id, partial.body.data.fulfillment.id);
  t.equal(replay.headers['idempotent-replayed'], 'true');
  const mismatch = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: { items: [{ orderItemId: itemA.id, quantity: 1 }] }, ...admin(owner), headers: { 'idempotency-key': 'ship-1' } });
  t.equal(mismatch.status, 422);
  t.equal((await app.ctx.db('fulfillments').where({ orderId: order.id })).length, 1, 'nothing new from the replay or the mismatch');

  const over = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: { items: [{ orderItemId: itemA.id, quantity: 2 }] }, ...admin(owner) });
  t.equal(over.status, 409);
  t.equal(over.body.error.code, 'already_fulfilled');
  const notOurs = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: { items: [{ orderItemId: order.id, quantity: 1 }] }, ...admin(owner) });
  t.equal(notOurs.status, 422);
  const emptyList = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: { items: [] }, ...admin(owner) });
  t.equal(emptyList.status, 422, 'an empty items list is refused, not read as everything');
  t.equal(emptyList.body.error.details[0].path, 'items');

  // Default: everything left, without notifying; the order is fulfilled and completed.
  const rest = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: { notifyCustomer: false }, ...admin(owner) });
  t.equal(rest.status, 201);
  t.same(rest.body.data.fulfillment.items.map((i: any) => [i.orderItemId, i.quantity]).sort(), [[itemA.id, 1], [itemB.id, 1]].sort());
  t.match(rest.body.data.order, { fulfillmentStatus: 'fulfilled', status: 'completed' });
  t.ok(rest.body.data.order.items.every((i: any) => i.fulfilledQuantity === i.quantity));
  const done = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: {}, ...admin(owner) });
  t.equal(done.status, 409);
  t.equal(done.body.error.code, 'already_fulfilled');
  const shippingMails = await app.ctx.db('emailLog').where({ storeId: owner.store.id, templateKey: 'shipping_confirmation' });
  t.equal(shippingMails.length, 1, 'notifyCustomer false sends nothing');

  const filtered = await app.request({ url: '/admin/orders?status=fulfilled', ...admin(owner) });
  t.same(filtered.body.data.orders.map((o: any) => o.id), [order.id]);
  const unfulfilled = await app.request({ url: '/admin/orders?status=unfulfilled', ...admin(owner) });
  t.equal(unfulfilled.body.data.orders.length, 3);

  const tracked = await app.request({ url: new URL(trackingUrl).pathname });
  t.equal(tracked.body.data.order.fulfillments.length, 2);
  t.match(tracked.body.data.order.fulfillments[0], { trackingCompany: 'UPS', trackingNumber: '1Z999', trackingUrl: 'https://ups.example/1Z999' });
  t.equal(tracked.body.data.order.status, 'completed');

  const foreignFulfil = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: {}, ...admin(other) });
  t.equal(foreignFulfil.status, 404);
  const currency = await app.request({ method: 'PATCH', url: '/admin/store', payload: { currency: 'EUR' }, ...admin(owner) });
  t.equal(currency.status, 409, 'the currency is locked once orders exist');
});

t.test('fulfilments race for the last units: one wins, the other is already_fulfilled', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Desk', [{ price: 10000, stock: 10 }]);
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 2 }]);
  const order = (await confirm(app, owner, session.body.data.checkoutSession.id)).body.data.order;
  const attempts = await Promise.all(
    Array.from({ length: 6 }, () =>
      app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: { items: [{ orderItemId: order.items[0].id, quantity: 2 }], notifyCustomer: false }, ...admin(owner) })
    )
  );
  t.same(attempts.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
  const item = await app.ctx.db('orderItems').where({ orderId: order.id }).first();
  t.equal(item.fulfilledQuantity, 2);
});

t.test("tracking links go to the store's storefrontUrl when it has one", async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner, { storefrontUrl: 'https://shop.example.com/' });
  const product = await sellable(app, owner, 'Rug', [{ price: 8000, stock: 5 }]);
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }]);
  const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
  t.equal(confirmed.status, 200, confirmed.raw);
  t.match(confirmed.body.data.trackingUrl, /^https:\/\/shop\.example\.com\/orders\/track\/[\w-]{20,}$/);
  const token = confirmed.body.data.trackingUrl.split('/').pop();
  const tracked = await app.request({ url: `/public/orders/${token}` });
  t.equal(tracked.status, 200);
  t.equal(tracked.body.data.order.number, confirmed.body.data.order.number);
  // The app is shared: this order's confirmation, found by its email log row (the outbox job id).
  const mail = await app.ctx.db('emailLog').where({ storeId: owner.store.id, templateKey: 'order_confirmation' }).first('id');
  const outbox = await app.ctx.db('outbox').where({ name: 'send-email', jobId: mail.id }).first();
  if (outbox) {
    const data = openEmailMessage(app.ctx, outbox.payload.sealed).data as { order: { trackingUrl: string } };
    t.equal(data.order.trackingUrl, confirmed.body.data.trackingUrl, 'the email carries the same link');
    t.equal(outbox.payload.orderNumber, `#${confirmed.body.data.order.number}`, 'and the number drawn with the order');
  }
});
