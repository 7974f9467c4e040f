import { randomUUID } from 'node:crypto';
import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { seedCustomers } from '../../helpers/marketing.js';

/**
 * Until the checkout module is merged, this file creates `orders` and `order_items` with the
 * columns checkout's migration gives them; afterwards it uses the real tables. The insert below
 * fills every NOT NULL column of the real tables, so it works with both.
 */
async function ensureOrderTables(app: TestApp) {
  const present = await app.ctx.db.raw(`select to_regclass('public.orders') is not null as present`);
  if (present.rows[0].present) return;
  await app.ctx.db.raw(`
    create table orders (
      id uuid primary key, store_id uuid not null, number integer not null, customer_id uuid, email text not null,
      payment_status text not null, payment_provider text not null, currency char(3) not null, subtotal bigint not null,
      total bigint not null, shipping_address jsonb not null, tracking_token text not null);
    create table order_items (
      id uuid primary key, order_id uuid not null references orders(id) on delete cascade, store_id uuid not null,
      product_id uuid, variant_id uuid, title text not null, quantity integer not null, unit_price integer not null, line_total bigint not null);
  `);
}

let orderNumber = 1000;
async function order(app: TestApp, storeId: string, customerId: string, productId: string, paymentStatus: string) {
  const id = randomUUID();
  orderNumber += 1;
  await app.ctx.db.raw(
    `insert into orders (id, store_id, number, customer_id, email, payment_status, payment_provider, currency, subtotal, total, shipping_address, tracking_token)
     values (?, ?, ?, ?, 'x@example.com', ?, 'manual', 'USD', 1000, 1000, '{}', ?)`,
    [id, storeId, orderNumber, customerId, paymentStatus, randomUUID()]
  );
  await app.ctx.db.raw(
    `insert into order_items (id, order_id, store_id, product_id, variant_id, title, quantity, unit_price, line_total) values (?, ?, ?, ?, null, 'Item', 1, 1000, 1000)`,
    [randomUUID(), id, storeId, productId]
  );
}

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('audience filters on purchased products and collections count paid orders only: not pending, refunded or cancelled ones', async (t) => {
  await ensureOrderTables(app);
  const owner = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  const product = async (title: string) =>
    (await app.request({ method: 'POST', url: '/admin/products', ...as, payload: { title, status: 'active', variants: [{ title: 'Default', price: 1000 }] } })).body.data.product.id as string;
  const mug = await product('Mug');
  const cup = await product('Cup');
  const hat = await product('Hat');
  const kitchen = (await app.request({ method: 'POST', url: '/admin/collections', ...as, payload: { title: 'Kitchen', productIds: [mug, cup] } })).body.data.collection.id;

  const [mugBuyer, cupBuyer, hatBuyer, refunded, pending, unsubscribed] = [
    ...(await seedCustomers(app, owner.store.id, 5, { prefix: 'buyer', ordersCount: 1, lastOrderDaysAgo: 5 })),
    ...(await seedCustomers(app, owner.store.id, 1, { prefix: 'gone', emailMarketing: 'unsubscribed', ordersCount: 1, lastOrderDaysAgo: 5 }))
  ] as string[];
  await order(app, owner.store.id, mugBuyer!, mug, 'paid');
  await order(app, owner.store.id, cupBuyer!, cup, 'paid');
  await order(app, owner.store.id, hatBuyer!, hat, 'paid');
  await order(app, owner.store.id, refunded!, mug, 'refunded');
  await order(app, owner.store.id, pending!, mug, 'pending');
  await order(app, owner.store.id, unsubscribed!, mug, 'paid');

  const preview = async (filters: unknown) => {
    const response = await app.request({ method: 'POST', url: '/admin/marketing/audience/preview', ...as, payload: { audience: { filters } } });
    t.equal(response.status, 200, response.raw);
    return response.body.data.sample.map((s: { id: string }) => s.id).sort();
  };
  t.same(await preview({ purchasedProductIds: [mug] }), [mugBuyer], 'paid orders of subscribed customers only');
  t.same(await preview({ purchasedProductIds: [mug, hat] }), [mugBuyer, hatBuyer].sort());
  t.same(await preview({ purchasedCollectionIds: [kitchen] }), [mugBuyer, cupBuyer].sort());
  await app.ctx.db('orders').where({ customerId: cupBuyer }).update({ status: 'cancelled' });
  t.same(await preview({ purchasedCollectionIds: [kitchen] }), [mugBuyer], 'a cancelled order is no purchase');
  await app.ctx.db('orders').where({ customerId: cupBuyer }).update({ status: 'open' });
  t.same(await preview({ purchasedCollectionIds: [kitchen], purchasedProductIds: [cup] }), [cupBuyer], 'filters intersect');
  t.same(await preview({ purchasedProductIds: [mug], minOrders: 2 }), []);

  const other = await signupOwner(app);
  const foreign = await app.request({
    method: 'POST',
    url: '/admin/marketing/audience/preview',
    token: other.accessToken,
    storeId: other.store.id,
    payload: { audience: { filters: { purchasedProductIds: [mug] } } }
  });
  t.equal(foreign.body.data.count, 0, "another store's orders never count");
});

t.test('a manual-payment order becomes a purchase for the audience filters once it is marked paid', async (t) => {
  const owner = await signupOwner(app);
  const as = { token: owner.accessToken, storeId: owner.store.id };
  await setupShop(app, owner, { newsletterDoubleOptIn: false });
  const product = await sellable(app, owner, 'Teapot', [{ price: 2500, stock: 5 }]);
  const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }], { email: 'buyer@example.com' });
  t.equal(session.status, 201, session.raw);
  const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
  t.equal(confirmed.status, 200, confirmed.raw);
  t.equal(confirmed.body.data.order.paymentStatus, 'pending', 'manual payment: not collected yet');
  const subscribed = await app.request({ method: 'POST', url: '/storefront/newsletter/subscribe', payload: { email: 'buyer@example.com' }, storefrontToken: owner.storefrontToken });
  t.equal(subscribed.status, 200, subscribed.raw);

  const preview = async () => {
    const response = await app.request({ method: 'POST', url: '/admin/marketing/audience/preview', ...as, payload: { audience: { filters: { purchasedProductIds: [product.id] } } } });
    t.equal(response.status, 200, response.raw);
    return response.body.data.sample.map((s: { email: string }) => s.email);
  };
  t.same(await preview(), [], 'unpaid: not a purchase yet');
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${confirmed.body.data.order.id}/mark-paid`, payload: {}, ...as })).status, 200);
  t.same(await preview(), ['buyer@example.com']);
});
