import t from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';
import { ADDRESS, methodsOf, setupShop, sf, type ShopMethods } from '../../helpers/checkout.js';
import { waitForJob } from '../../helpers/jobs.js';

/**
 * Issue #34 "Done means": a US store (exclusive tax by state) and an EU store (VAT-inclusive prices,
 * a reduced rate class, VAT on shipping) check out carts whose totals match hand-computed values to
 * the cent, with a discount and a partial refund; an exempt customer pays no tax; the tax report.
 * Rounding (docs/taxes.md): per line, half up; the discount spread over the lines in proportion, the
 * cents left over to the largest line.
 */

async function region(app: TestApp, owner: Owner, payload: Record<string, unknown>) {
  const response = await app.request({ method: 'POST', url: '/admin/tax-regions', payload, ...admin(owner) });
  if (response.status !== 201) throw new Error(`tax region: ${response.status} ${response.raw}`);
  return response.body.data.taxRegion;
}

async function discount(app: TestApp, owner: Owner, payload: Record<string, unknown>) {
  const response = await app.request({ method: 'POST', url: '/admin/discounts', payload: { isActive: true, ...payload }, ...admin(owner) });
  if (response.status !== 201) throw new Error(`discount: ${response.status} ${response.raw}`);
}

async function product(app: TestApp, owner: Owner, title: string, price: number, taxClass: string | null = null) {
  const created = await createProduct(app, owner, { title, status: 'active', variants: [{ title: 'Default', sku: title.toUpperCase(), price, inventoryQuantity: 100, taxClass }] });
  return (created as { variants: Array<{ id: string }> }).variants[0]!.id;
}

/** cart → discount → shipping method → checkout session at `address`; then confirm and mark paid. */
async function checkout(
  app: TestApp,
  owner: Owner,
  items: Array<{ variantId: string; quantity: number }>,
  options: { code?: string; method: keyof ShopMethods; address: Record<string, unknown>; email: string }
) {
  const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items }, ...sf(owner) });
  const cartId = cart.body.data.cart.id as string;
  if (options.code) await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/discount`, payload: { code: options.code }, ...sf(owner) });
  const shipping = await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload: { shippingMethodId: methodsOf(owner)[options.method] }, ...sf(owner) });
  if (shipping.status !== 200) throw new Error(`shipping: ${shipping.status} ${shipping.raw}`);
  const session = await app.request({ method: 'POST', url: `/storefront/carts/${cartId}/checkout-session`, payload: { email: options.email, shippingAddress: options.address }, ...sf(owner) });
  if (session.status !== 201) throw new Error(`session: ${session.status} ${session.raw}`);
  const confirmed = await app.request({ method: 'POST', url: `/storefront/checkout-sessions/${session.body.data.checkoutSession.id}/confirm`, ...sf(owner) });
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${confirmed.raw}`);
  const order = confirmed.body.data.order;
  const paid = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: {}, ...admin(owner) });
  if (paid.status !== 200) throw new Error(`mark-paid: ${paid.status} ${paid.raw}`);
  return { cartId, session: session.body.data, order };
}

const refund = (app: TestApp, owner: Owner, orderId: string, payload: Record<string, unknown>) =>
  app.request({ method: 'POST', url: `/admin/orders/${orderId}/refunds`, payload: { reason: 'test', notifyCustomer: false, ...payload }, ...admin(owner) });

// One app for the tests without workers (issue #32); each signs up its own store, so none sees another's
// data. The US test (an imports worker) builds its own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('US store: exclusive sales tax by state, a percentage discount, a partial refund, an exempt customer, the report', async (t) => {
  const app = await buildApp(t, { workers: ['imports'] });
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  await region(app, owner, { country: 'US', name: 'US sales tax', rate: 500 });
  const ca = await region(app, owner, { country: 'US', region: 'CA', name: 'CA sales tax', rate: 725 });
  t.equal(ca.region, 'US-CA');
  const duplicate = await app.request({ method: 'POST', url: '/admin/tax-regions', payload: { country: 'US', region: 'US-CA', name: 'again', rate: 1 }, ...admin(owner) });
  t.equal(duplicate.status, 409, "'US-CA' and 'CA' are one region");
  await discount(app, owner, { code: 'TEN', type: 'percentage', value: 10 });
  const shirt = await product(app, owner, 'Shirt', 1999);
  const mug = await product(app, owner, 'Mug', 1250);

  // Before checkout, a cart read names the shopper's place: the country's entry, then the state's.
  const cart = await app.request({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId: shirt, quantity: 1 }] }, ...sf(owner) });
  const cartId = cart.body.data.cart.id;
  t.match(cart.body.data.cart, { taxTotal: 0, pricesIncludeTax: false, total: 1999 }, 'no address yet: no tax');
  const inUs = await app.request({ url: `/storefront/carts/${cartId}?country=US`, ...sf(owner) });
  t.match(inUs.body.data.cart, { taxTotal: 100, total: 2099 }, '5 % of 1999 = 99.95 -> 100');
  const inCa = await app.request({ url: `/storefront/carts/${cartId}?country=US&region=CA`, ...sf(owner) });
  t.same(inCa.body.data.cart.items[0].taxLines, [{ name: 'CA sales tax', rate: 725, amount: 145, jurisdiction: 'US-CA' }], "the state's entry beats the country's (1999 x 7.25 % = 144.93)");

  // 2 shirts (3998) + 1 mug (1250) = 5248; TEN takes 525 (524.8 half up); spread 399.95 -> 399 and
  // 125.04 -> 125, the cent left to the largest line: 400 / 125. Taxable 3598 and 1125 at 7.25 %:
  // 260.855 -> 261 and 81.5625 -> 82 = 343; CA does not tax shipping (Express 1500).
  const address = { ...ADDRESS, region: 'US-CA', city: 'Los Angeles' };
  const { session, order } = await checkout(app, owner, [{ variantId: shirt, quantity: 2 }, { variantId: mug, quantity: 1 }], { code: 'TEN', method: 'express', address, email: 'pat@example.com' });
  t.equal(session.checkoutSession.amount, 6566, 'the session charges the taxed total');
  t.match(session.cart, { subtotal: 5248, discountTotal: 525, shippingTotal: 1500, taxTotal: 343, total: 6566, pricesIncludeTax: false, shippingTaxLines: [] });
  t.same(session.cart.items.map((item: { discountAmount: number; taxLines: Array<{ amount: number }> }) => [item.discountAmount, item.taxLines.map((l) => l.amount)]), [[400, [261]], [125, [82]]]);
  t.match(order, { subtotal: 5248, discountTotal: 525, shippingTotal: 1500, taxTotal: 343, total: 6566, pricesIncludeTax: false, shippingTaxLines: [] });
  t.same(order.items[0].taxLines, [{ name: 'CA sales tax', rate: 725, amount: 261, jurisdiction: 'US-CA' }]);

  // An edit of a taxed order is taxed as the checkout was (docs/orders-by-hand.md): two mugs, 6498,
  // TEN 650 spread 400 / 250, tax 261 + 163 (2250 x 7.25 % = 163.125) = 424; 6498 - 650 + 1500 + 424 = 7772.
  const edit = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/edits?dryRun=true`, payload: { change: [{ orderItemId: order.items[1].id, quantity: 2 }] }, ...admin(owner) });
  t.equal(edit.status, 200, edit.raw);
  t.match(edit.body.data.edit, { difference: 1206, totals: { taxTotal: 424, total: 7772 }, before: { taxTotal: 343, total: 6566 } });

  // One shirt back: its paid share round(1999 x 4723 / 5248) = 1799, plus half its line's tax (130.5 -> 131).
  const first = await refund(app, owner, order.id, { items: [{ orderItemId: order.items[0].id, quantity: 1 }] });
  t.equal(first.status, 201, first.raw);
  t.match(first.body.data.refund, { amount: 1930, taxAmount: 131 });
  // The other shirt gives back the rest of the line's tax: 261 - 131 = 130, never a cent more.
  const second = await refund(app, owner, order.id, { items: [{ orderItemId: order.items[0].id, quantity: 1 }] });
  t.match(second.body.data.refund, { amount: 1929, taxAmount: 130 });
  // The rest as an amount: its tax is in proportion, and all refunds' tax stays within the 343 collected.
  const left = 6566 - 1930 - 1929;
  const rest = await refund(app, owner, order.id, { amount: left });
  t.equal(rest.status, 201, rest.raw);
  const taxBack = 131 + 130 + rest.body.data.refund.taxAmount;
  t.ok(taxBack <= 343, `tax refunded ${taxBack} <= 343 collected`);

  // The customer is tax exempt from now on: the same cart pays no tax.
  const customer = await app.ctx.db('customers').where({ storeId: owner.store.id, email: 'pat@example.com' }).first('id');
  const patched = await app.request({ method: 'PATCH', url: `/admin/customers/${customer.id}`, payload: { taxExempt: true }, ...admin(owner) });
  t.equal(patched.status, 200, patched.raw);
  t.equal(patched.body.data.customer.taxExempt, true);
  const exempt = await checkout(app, owner, [{ variantId: shirt, quantity: 2 }, { variantId: mug, quantity: 1 }], { code: 'TEN', method: 'express', address, email: 'PAT@example.com' });
  t.match(exempt.order, { taxTotal: 0, total: 5248 - 525 + 1500 });
  t.equal(exempt.session.checkoutSession.amount, 6223);

  // The report: collected 343 in US-CA this month, refunded 131 + 130 + the amount refund's share.
  const started = await app.request({ method: 'POST', url: '/admin/reports/tax', payload: {}, ...admin(owner) });
  t.equal(started.status, 202, started.raw);
  const job = await waitForJob(app, owner, started.body.data.job.id);
  t.equal(job.status, 'completed', job.error ?? '');
  t.match(job.result, { rows: 1, collected: 343, refunded: taxBack });
  const csv = await app.request({ url: `/admin/jobs/${job.id}/download`, ...admin(owner) });
  t.equal(csv.status, 200);
  const month = new Date().toISOString().slice(0, 7);
  t.equal(csv.raw, `month,jurisdiction,tax,rate_percent,collected,refunded,net,currency\r\n${month},US-CA,CA sales tax,7.25,343,${taxBack},${343 - taxBack},USD\r\n`);
});

t.test('EU store: VAT-inclusive prices, a reduced class, VAT on shipping, a fixed discount, a partial refund', async (t) => {
  const owner = await signupOwner(app);
  await setupShop(app, owner, { currency: 'EUR', pricesIncludeTax: true });
  await region(app, owner, { country: 'DE', name: 'MwSt.', rate: 1900, classRates: { reduced: 700, zero: 0 }, taxShipping: true });
  await discount(app, owner, { code: 'FIVE', type: 'fixed_amount', value: 500 });
  const book = await product(app, owner, 'Book', 1500, 'reduced');
  const shirt = await product(app, owner, 'Tee', 2380);

  // Books 3000 (7 %) + tee 2380 (19 %) = 5380; FIVE takes 500, spread 278.81 -> 278 and 221.19 -> 221,
  // the cent left to the books: 279 / 221. VAT is inside the gross: 2721 - round(2721 / 1.07) = 178,
  // 2159 - round(2159 / 1.19) = 345; shipping 900 - round(900 / 1.19) = 144. Total unchanged by tax.
  const address = { ...ADDRESS, country: 'DE', city: 'Berlin', postalCode: '10115' };
  const { session, order } = await checkout(app, owner, [{ variantId: book, quantity: 2 }, { variantId: shirt, quantity: 1 }], { code: 'FIVE', method: 'eu', address, email: 'eva@example.com' });
  t.match(session.cart, { subtotal: 5380, discountTotal: 500, shippingTotal: 900, taxTotal: 667, total: 5780, pricesIncludeTax: true });
  t.equal(session.checkoutSession.amount, 5780);
  t.same(session.cart.shippingTaxLines, [{ name: 'MwSt.', rate: 1900, amount: 144, jurisdiction: 'DE' }]);
  t.same(order.items.map((item: { taxLines: Array<{ rate: number; amount: number }> }) => item.taxLines.map((l) => [l.rate, l.amount])), [[[700, 178]], [[1900, 345]]]);
  t.match(order, { taxTotal: 667, total: 5780, pricesIncludeTax: true });

  // One book and the shipping back: round(1500 x 4880 / 5380) = 1361 + 900 (tax inside: 89 + 144).
  const back = await refund(app, owner, order.id, { items: [{ orderItemId: order.items[0].id, quantity: 1 }], shipping: 900 });
  t.equal(back.status, 201, back.raw);
  t.match(back.body.data.refund, { amount: 2261, taxAmount: 233 });
  const again = await refund(app, owner, order.id, { items: [{ orderItemId: order.items[0].id, quantity: 1 }] });
  t.match(again.body.data.refund, { amount: 1361, taxAmount: 89 }, "the book line's other half of its 178");

  // Storefront display: the product read for a German shopper says the price is VAT-inclusive and what it is without.
  const shown = await app.request({ url: `/storefront/products/book?country=DE`, ...sf(owner) });
  t.equal(shown.status, 200, shown.raw);
  t.match(shown.body.data.product.tax, { pricesIncludeTax: true, country: 'DE' });
  t.match(shown.body.data.product.variants[0], { price: 1500, priceInclTax: 1500, priceExclTax: 1402, displayPrice: 1500, taxRate: 700 });
  const plain = await app.request({ url: '/storefront/products/book', ...sf(owner) });
  t.equal(plain.body.data.product.tax, undefined, 'without a country the cached document is served as it is');
});

t.test('no tax regions: totals as before, taxTotal 0; tax regions are tenant-scoped and validated', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  await setupShop(app, owner);
  const tee = await product(app, owner, 'Plain', 2000);
  const { order, session } = await checkout(app, owner, [{ variantId: tee, quantity: 1 }], { method: 'express', address: ADDRESS, email: 'n@example.com' });
  t.match(order, { subtotal: 2000, shippingTotal: 1500, taxTotal: 0, total: 3500 });
  t.equal(session.checkoutSession.amount, 3500);

  const created = await region(app, owner, { country: 'fr', name: 'TVA', rate: 2000 });
  t.match(created, { country: 'FR', region: null, classRates: {}, taxShipping: false });
  t.equal((await app.request({ url: `/admin/tax-regions/${created.id}`, ...admin(other) })).status, 404, "another store's region is not found");
  const bad = await app.request({ method: 'POST', url: '/admin/tax-regions', payload: { country: 'FR', name: 'x', rate: 10_001, extra: 1 }, ...admin(owner) });
  t.equal(bad.status, 422);
  const patched = await app.request({ method: 'PATCH', url: `/admin/tax-regions/${created.id}`, payload: { rate: 550, classRates: { reduced: 55 } }, ...admin(owner) });
  t.match(patched.body.data.taxRegion, { rate: 550, classRates: { reduced: 55 } });
  const listed = await app.request({ url: '/admin/tax-regions?country=FR', ...admin(owner) });
  t.equal(listed.body.data.taxRegions.length, 1);
  t.equal((await app.request({ method: 'DELETE', url: `/admin/tax-regions/${created.id}`, ...admin(owner) })).status, 204);
  t.equal((await app.request({ url: `/admin/tax-regions/${created.id}`, ...admin(owner) })).status, 404);
});
