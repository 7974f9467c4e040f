import t from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';
import { ADDRESS, methodsOf, setupShop, sf, type ShopMethods } from '../../helpers/checkout.js';
import { stockOf } from '../../helpers/order-ops.js';
import { startStripeServer } from '../../helpers/stripe-server.js';

/**
 * Orders by hand are taxed as a checkout (docs/taxes.md, docs/orders-by-hand.md): a draft's totals
 * and its order's tax lines are a checkout's to the cent; an edit or exchange of a taxed order
 * taxes the order's lines again at its address (its prices-include-tax rule kept), the difference
 * includes tax, a refund of it gives the tax back; an exempt customer pays none; Stripe Tax down
 * on an edit is 503 with nothing written; a weight rate prices a draft and an edit by the lines' weight.
 */

async function region(app: TestApp, owner: Owner, payload: Record<string, unknown>) {
  const response = await app.request({ method: 'POST', url: '/admin/tax-regions', payload, ...admin(owner) });
  if (response.status !== 201) throw new Error(`tax region: ${response.status} ${response.raw}`);
}

async function product(app: TestApp, owner: Owner, title: string, price: number, extra: Record<string, unknown> = {}) {
  const created = await createProduct(app, owner, { title, status: 'active', variants: [{ title: 'Default', sku: title.toUpperCase(), price, inventoryQuantity: 100, ...extra }] });
  return (created as { variants: Array<{ id: string }> }).variants[0]!.id;
}

/** A checkout of these items at `address`, confirmed and marked paid (a manual order). */
async function checkout(app: TestApp, owner: Owner, items: Array<{ variantId: string; quantity: number }>, options: { code?: string; method: keyof ShopMethods; address: Record<string, unknown>; email: string }) {
  const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items }, ...sf(owner) });
  const cartId = cart.body.data.cart.id as string;
  if (options.code) await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/discount`, payload: { code: options.code }, ...sf(owner) });
  await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload: { shippingMethodId: methodsOf(owner)[options.method] }, ...sf(owner) });
  const session = await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/checkout-session`, payload: { email: options.email, shippingAddress: options.address }, ...sf(owner) });
  if (session.status !== 201) throw new Error(`session: ${session.status} ${session.raw}`);
  const confirmed = await app.request({ method: 'POST', url: `/storefront/checkout-sessions/${session.body.data.checkoutSession.id}/confirm`, ...sf(owner) });
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${confirmed.raw}`);
  const paid = await app.request({ method: 'POST', url: `/admin/orders/${confirmed.body.data.order.id}/mark-paid`, payload: {}, ...admin(owner) });
  if (paid.status !== 200) throw new Error(`mark-paid: ${paid.status} ${paid.raw}`);
  return confirmed.body.data.order as { id: string; taxTotal: number; total: number; items: Array<{ id: string; variantId: string; taxLines: unknown[] }> };
}

const CA = { ...ADDRESS, region: 'CA' };
const ca = (amount: number) => [{ name: 'CA sales tax', rate: 725, amount, jurisdiction: 'US-CA' }];

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
// The Stripe Tax test needs other settings (the fake Stripe's address) and builds its own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('US store (exclusive, CA 7.25 % on goods and shipping): a draft is taxed as a checkout; edits of a taxed order add and refund tax to the cent', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  await region(app, owner, { country: 'US', region: 'CA', name: 'CA sales tax', rate: 725, taxShipping: true });
  const code = await app.request({ method: 'POST', url: '/admin/discounts', payload: { code: 'TEN', type: 'percentage', value: 10, isActive: true }, ...admin(owner) });
  t.equal(code.status, 201, code.raw);
  const shirt = await product(app, owner, 'Shirt', 1999);
  const mug = await product(app, owner, 'Mug', 1250);
  const post = (url: string, payload: unknown) => app.request({ method: 'POST', url, payload, ...admin(owner) });

  // The draft of the checkout in docs/taxes.md: 5248, TEN 525 spread 400 / 125, tax 261 + 82; shipping
  // 1500 taxed too: 108.75 -> 109. taxTotal 452, total 5248 - 525 + 1500 + 452 = 6675.
  const draft = await post('/admin/draft-orders', {
    email: 'phone@example.com',
    lines: [
      { variantId: shirt, quantity: 2 },
      { variantId: mug, quantity: 1 }
    ],
    shippingAddress: CA,
    shippingRateId: methodsOf(owner).express,
    discountCode: 'TEN'
  });
  t.equal(draft.status, 201, draft.raw);
  const priced = draft.body.data.draftOrder;
  t.match(priced, { subtotal: 5248, discountTotal: 525, shippingTotal: 1500, taxTotal: 452, total: 6675, pricesIncludeTax: false });
  t.same(
    priced.lines.map((l: { discountAmount: number; taxAmount: number; taxLines: unknown }) => [l.discountAmount, l.taxAmount, l.taxLines]),
    [
      [400, 261, ca(261)],
      [125, 82, ca(82)]
    ]
  );
  t.same(priced.shippingTaxLines, ca(109));

  // Completed: the order carries the draft's tax as a checkout's order does; the same cart checked out agrees.
  const completed = await post(`/admin/draft-orders/${priced.id}/complete`, { payment: 'mark_paid' });
  t.equal(completed.status, 200, completed.raw);
  const fromDraft = completed.body.data.order;
  t.match(fromDraft, { subtotal: 5248, discountTotal: 525, shippingTotal: 1500, taxTotal: 452, total: 6675, pricesIncludeTax: false });
  const order = await checkout(app, owner, [{ variantId: shirt, quantity: 2 }, { variantId: mug, quantity: 1 }], { code: 'TEN', method: 'express', address: CA, email: 'web@example.com' });
  t.match(order, { taxTotal: 452, total: 6675 });
  t.same(
    fromDraft.items.map((i: { taxLines: unknown; discountAmount: number }) => [i.discountAmount, i.taxLines]),
    order.items.map((i) => [(i as unknown as { discountAmount: number }).discountAmount, i.taxLines]),
    "the draft's order lines carry a checkout order's tax lines"
  );
  t.same(fromDraft.shippingTaxLines, ca(109));

  // Edit 1: one more mug. 6498, TEN 650 spread 400 / 125 / 125, tax 261 + 82 + 82 + shipping 109 = 534;
  // total 6498 - 650 + 1500 + 534 = 7882; difference 1207 (tax 82 of it).
  const shirtLine = order.items.find((i) => i.variantId === shirt)!.id;
  const added = await post(`/admin/orders/${order.id}/edits`, { add: [{ variantId: mug, quantity: 1 }], collect: 'mark_paid' });
  t.equal(added.status, 201, added.raw);
  t.match(added.body.data.edit, { difference: 1207, totals: { subtotal: 6498, discountTotal: 650, shippingTotal: 1500, taxTotal: 534, total: 7882 } });
  t.same(
    added.body.data.order.items.map((i: { discountAmount: number; taxLines: unknown }) => [i.discountAmount, i.taxLines]),
    [
      [400, ca(261)],
      [125, ca(82)],
      [125, ca(82)]
    ]
  );

  // Edit 2: one shirt instead of two. 4499, TEN 450 spread 200 / 125 / 125, tax 130 + 82 + 82 + 109 = 403;
  // total 4499 - 450 + 1500 + 403 = 5952; difference -1930, refunded with 534 - 403 = 131 of tax.
  const lowered = await post(`/admin/orders/${order.id}/edits`, { change: [{ orderItemId: shirtLine, quantity: 1 }] });
  t.equal(lowered.status, 201, lowered.raw);
  t.match(lowered.body.data.edit, { difference: -1930, totals: { taxTotal: 403, total: 5952 }, refund: { status: 'succeeded', amount: 1930, taxAmount: 131 } });
  t.same(lowered.body.data.order.items[0].taxLines, ca(130));
  const refundRow = await app.ctx.db('orderRefunds').where({ storeId: owner.store.id, orderId: order.id, source: 'edit' }).first('taxLines');
  t.same(refundRow.taxLines, ca(131), 'the refund records the tax it gave back');

  // Edit 3: Standard shipping (500, taxed 36.25 -> 36): tax 294 + 36 = 330, total 4499 - 450 + 500 + 330 = 4879; -1073 (73 of tax).
  const shipping = await post(`/admin/orders/${order.id}/edits`, { shippingRateId: methodsOf(owner).standard });
  t.equal(shipping.status, 201, shipping.raw);
  t.match(shipping.body.data.edit, { difference: -1073, totals: { shippingTotal: 500, taxTotal: 330, total: 4879 }, refund: { amount: 1073, taxAmount: 73 } });
  t.same(shipping.body.data.order.shippingTaxLines, ca(36));
  t.match(shipping.body.data.order, { total: 4879, taxTotal: 330, amountRefunded: 0, paymentStatus: 'paid' });

  // Later refunds: every unit of the shirt gives back its line's tax to the cent (the edits' refunds do not use it up).
  const rest = await post(`/admin/orders/${order.id}/refunds`, { items: [{ orderItemId: shirtLine, quantity: 1 }], reason: 'test', notifyCustomer: false });
  t.equal(rest.status, 201, rest.raw);
  t.match(rest.body.data.refund, { amount: 1799 + 130, taxAmount: 130 });

  // A tax-exempt customer: a draft for them pays no tax, nor does an edit of their order.
  const customer = await post('/admin/customers', { email: 'exempt@example.com' });
  t.equal(customer.status, 201, customer.raw);
  const customerId = customer.body.data.customer.id as string;
  t.equal((await app.request({ method: 'PATCH', url: `/admin/customers/${customerId}`, payload: { taxExempt: true }, ...admin(owner) })).status, 200);
  const exemptDraft = await post('/admin/draft-orders', { customerId, lines: [{ variantId: shirt, quantity: 1 }], shippingAddress: CA, shippingRateId: methodsOf(owner).express });
  t.equal(exemptDraft.status, 201, exemptDraft.raw);
  t.match(exemptDraft.body.data.draftOrder, { taxTotal: 0, total: 1999 + 1500 });
  const exemptOrder = await checkout(app, owner, [{ variantId: shirt, quantity: 1 }], { method: 'express', address: CA, email: 'EXEMPT@example.com' });
  t.equal(exemptOrder.taxTotal, 0);
  const exemptEdit = await post(`/admin/orders/${exemptOrder.id}/edits?dryRun=true`, { add: [{ variantId: mug, quantity: 2 }] });
  t.equal(exemptEdit.status, 200, exemptEdit.raw);
  t.match(exemptEdit.body.data.edit, { difference: 2500, totals: { taxTotal: 0, total: 1999 + 2500 + 1500 } });
});

t.test('DE store (VAT included, a reduced class, VAT on shipping): an edit and an exchange keep the total as priced, the tax taken out of it', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner, { pricesIncludeTax: true });
  await region(app, owner, { country: 'DE', name: 'VAT', rate: 1900, classRates: { reduced: 700 }, taxShipping: true });
  const book = await product(app, owner, 'Book', 1500, { taxClass: 'reduced' });
  const tee = await product(app, owner, 'Tee', 2380);
  const berlin = { ...ADDRESS, country: 'DE', postalCode: '10115', city: 'Berlin' };
  const vat = (rate: number, amount: number) => [{ name: 'VAT', rate, amount, jurisdiction: 'DE' }];
  const post = (url: string, payload: unknown) => app.request({ method: 'POST', url, payload, ...admin(owner) });

  // Book 1500 at 7 %: 1500 - round(1401.87) = 98; tee 2380 at 19 %: 380; EU Post 900: 144. Total 4780 (tax inside).
  const order = await checkout(app, owner, [{ variantId: book, quantity: 1 }, { variantId: tee, quantity: 1 }], { method: 'eu', address: berlin, email: 'de@example.com' });
  t.match(order, { taxTotal: 622, total: 4780 });

  // Another book: + 1500 (98 of it VAT), the total still the prices.
  const edited = await post(`/admin/orders/${order.id}/edits`, { add: [{ variantId: book, quantity: 1 }], collect: 'mark_paid' });
  t.equal(edited.status, 201, edited.raw);
  t.match(edited.body.data.edit, { difference: 1500, totals: { subtotal: 5380, shippingTotal: 900, taxTotal: 720, total: 6280, pricesIncludeTax: true } });
  t.same(edited.body.data.order.items[2].taxLines, vat(700, 98));

  // The tee exchanged for a third book: 6280 -> 5400, -880 refunded; the tax falls 720 -> 438 (282 back, inside the 880).
  const teeLine = order.items.find((i) => i.variantId === tee)!.id;
  const exchange = { returnItems: [{ orderItemId: teeLine, quantity: 1, restock: true }], newItems: [{ variantId: book, quantity: 1 }] };
  const preview = await post(`/admin/orders/${order.id}/exchanges?dryRun=true`, exchange);
  t.equal(preview.status, 200, preview.raw);
  t.match(preview.body.data.edit, { difference: -880, totals: { taxTotal: 438, total: 5400 }, before: { taxTotal: 720, total: 6280 } });
  const swapped = await post(`/admin/orders/${order.id}/exchanges`, exchange);
  t.equal(swapped.status, 201, swapped.raw);
  t.match(swapped.body.data.edit, { difference: -880, refund: { status: 'succeeded', amount: 880, taxAmount: 282 } });
  const items = swapped.body.data.order.items as Array<{ variantId: string; taxLines: unknown }>;
  t.same(items.find((i) => i.variantId === tee)!.taxLines, [], 'the exchanged tee is no longer billed: no tax');
  t.same(swapped.body.data.order.shippingTaxLines, vat(1900, 144));
  t.match(swapped.body.data.order, { taxTotal: 438, total: 5400 });
  t.equal(await stockOf(app, tee), 100, 'the tee is back');
});

t.test('weight rates: a draft and an edit price shipping by the lines’ weight', async (t) => {
  const owner = await signupOwner(app);
  const zone = await app.request({
    method: 'POST',
    url: '/admin/shipping-zones',
    payload: { name: 'US', countries: ['US'], rates: [{ id: 'us-ground', name: 'Ground', type: 'weight', bands: [{ upTo: 1000, price: 500 }, { upTo: 5000, price: 900 }, { upTo: null, price: 1500 }] }] },
    ...admin(owner)
  });
  t.equal(zone.status, 201, zone.raw);
  const kettle = await product(app, owner, 'Kettle', 3000, { weightGrams: 600 });
  const post = (url: string, payload: unknown) => app.request({ method: 'POST', url, payload, ...admin(owner) });

  const light = await post('/admin/draft-orders', { email: 'w@example.com', lines: [{ variantId: kettle, quantity: 1 }], shippingAddress: ADDRESS, shippingRateId: 'us-ground' });
  t.equal(light.status, 201, light.raw);
  t.match(light.body.data.draftOrder, { shippingTotal: 500, total: 3500 }, '600 g: the first band');
  const heavy = await app.request({ method: 'PATCH', url: `/admin/draft-orders/${light.body.data.draftOrder.id}`, payload: { lines: [{ variantId: kettle, quantity: 2 }] }, ...admin(owner) });
  t.equal(heavy.status, 200, heavy.raw);
  t.match(heavy.body.data.draftOrder, { shippingTotal: 900, total: 6900 }, '1200 g: the second band');

  // An order of one kettle, shipped by courier; the edit adds one and chooses Ground: 1200 g -> 900.
  const other = await post('/admin/draft-orders', { email: 'e@example.com', lines: [{ variantId: kettle, quantity: 1 }], shippingAddress: ADDRESS, customShipping: { title: 'Courier', price: 700 } });
  const completed = await post(`/admin/draft-orders/${other.body.data.draftOrder.id}/complete`, { payment: 'pending' });
  t.equal(completed.status, 200, completed.raw);
  const edit = await post(`/admin/orders/${completed.body.data.order.id}/edits?dryRun=true`, { change: [{ orderItemId: completed.body.data.order.items[0].id, quantity: 2 }], shippingRateId: 'us-ground' });
  t.equal(edit.status, 200, edit.raw);
  t.match(edit.body.data.edit, { difference: 6900 - 3700, totals: { shippingTotal: 900, total: 6900 } });
});

t.test('stripe_tax: an edit is taxed by Stripe Tax; Stripe down on the preview or the commit is 503 and nothing is written', async (t) => {
  const stripe = await startStripeServer(t);
  stripe.taxRates.set('US-NY', { rate: 888, name: 'NY State Sales Tax' });
  const app = await buildApp(t, { env: { STRIPE_API_URL: stripe.url, TAX_PROVIDER_TIMEOUT_MS: '300' } });
  const owner = await signupOwner(app);
  await setupShop(app, owner, { taxProvider: 'stripe_tax' });
  const lamp = await product(app, owner, 'Lamp', 4999);
  const address = { ...ADDRESS, city: 'New York', region: 'NY', postalCode: '10001' };
  // 2 x 4999 at 8.88 %: 888; Express 1500: 133.
  const order = await checkout(app, owner, [{ variantId: lamp, quantity: 2 }], { method: 'express', address, email: 'ny@example.com' });
  t.match(order, { taxTotal: 1021, total: 12519 });
  const post = (url: string, payload: unknown) => app.request({ method: 'POST', url, payload, ...admin(owner) });
  const edit = { add: [{ variantId: lamp, quantity: 1 }], collect: 'mark_paid' };

  stripe.failing = true;
  const preview = await post(`/admin/orders/${order.id}/edits?dryRun=true`, edit);
  const commit = await post(`/admin/orders/${order.id}/edits`, edit);
  stripe.failing = false;
  t.equal(preview.status, 503, preview.raw);
  t.equal(preview.body.error.code, 'tax_provider_unavailable');
  t.equal(commit.status, 503, commit.raw);
  const row = await app.ctx.db('orders').where({ storeId: owner.store.id, id: order.id }).first('version', 'total', 'taxTotal');
  t.match(row, { version: 1, total: 12519, taxTotal: 1021 }, 'the order is as it was');
  t.equal((await app.ctx.db('orderItems').where({ storeId: owner.store.id, orderId: order.id })).length, 1, 'no line added');
  t.equal(await stockOf(app, lamp), 98, 'no stock taken');

  // Stripe up: the new lamp's 4999 at 8.88 % = 443.91 -> 444; the difference is 4999 + 444.
  const done = await post(`/admin/orders/${order.id}/edits`, edit);
  t.equal(done.status, 201, done.raw);
  t.match(done.body.data.edit, { difference: 5443, totals: { taxTotal: 1465, total: 17962 } });
  const asked = stripe.requests.filter((r) => r.path === '/v1/tax/calculations').at(-1)!;
  t.match(asked.body, { customer_details: { address: { country: 'US', state: 'NY', postal_code: '10001' } } });
});
