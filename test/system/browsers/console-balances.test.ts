import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { axeViolations, chromiumSkip, launchBrowser, screenshot, signIn, watchPageErrors } from '../../helpers/browser.js';
import { admin } from '../../helpers/catalog.js';
import { sellable, setupShop } from '../../helpers/checkout.js';
import { orderOps } from '../../helpers/order-ops.js';
import { connectStripe, startStripeServer } from '../../helpers/stripe-server.js';

/**
 * An order's balance links on its page: an open one voided, then recorded as paid by hand with a
 * reference; read back through the API (the invoice, what the order holds by hand, the timeline).
 */
t.setTimeout(240_000);

const skip = chromiumSkip();

t.test('the order page voids a balance link and records it as paid by hand', { skip }, async (t) => {
  const stripe = await startStripeServer(t);
  const app = await buildApp(t, { listen: true, env: { STRIPE_API_URL: stripe.url, STRIPE_WEBHOOK_DELAY_MS: '0' } });
  const owner = await signupOwner(app, { storeName: 'Counter Shop' });
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Tray', [
    { price: 1000, stock: 20 },
    { price: 1200, stock: 20 }
  ]);
  const [base, extra] = product.variants;
  const order = await orderOps(app, owner).paidOrder([{ variantId: base!.id, quantity: 1 }], 'tray@example.com');
  await connectStripe(app, stripe, owner);
  const edited = await app.request({ method: 'POST', url: `/admin/orders/${order.id}/edits`, payload: { add: [{ variantId: extra!.id, quantity: 1 }], collect: 'invoice', notifyCustomer: false }, ...admin(owner) });
  t.equal(edited.status, 201, edited.raw);
  const invoiceId = edited.body.data.edit.invoice.id as string;

  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const pageErrors = watchPageErrors(page);
  await signIn(page, app.server.info.uri, owner);
  await page.goto(`${app.server.info.uri}/app/orders/${order.id}`);
  const line = page.getByTestId('balance');
  await line.waitFor();
  t.match(await line.innerText(), /\$12\.00 · waiting for the customer/);
  t.same(await axeViolations(page), [], 'the order page with a balance link: axe finds nothing');

  await line.getByRole('button', { name: 'Void link' }).click();
  await line.filter({ hasText: 'voided' }).waitFor();
  t.equal((await app.ctx.db('orderBalanceInvoices').where({ storeId: owner.store.id, id: invoiceId }).first()).status, 'void');

  await line.getByRole('button', { name: 'Mark as paid' }).click();
  await line.getByLabel('How it was paid (reference)').fill('Cash at the counter');
  t.match(await line.getByRole('status').innerText(), /Record \$12\.00 as collected\?/);
  await screenshot(page, 'order-balance-mark-paid');
  await line.getByRole('button', { name: 'Record payment' }).click();
  await line.filter({ hasText: 'paid by hand' }).waitFor();
  t.equal(await line.getByRole('button').count(), 0, 'nothing left to do with it');

  const invoices = (await app.request({ url: `/admin/orders/${order.id}/balance-invoices`, ...admin(owner) })).body.data.invoices;
  t.match(invoices, [{ id: invoiceId, status: 'paid', paymentIntentId: null, amount: 1200 }]);
  t.equal(Number((await app.ctx.db('orders').where({ storeId: owner.store.id, id: order.id }).first()).collectedByHand), 1200);
  const timeline = (await app.request({ url: `/admin/orders/${order.id}/timeline`, ...admin(owner) })).body.data.events as Array<{ type: string; data: Record<string, unknown> }>;
  t.match(timeline.find((e) => e.type === 'paid' && e.data.balanceInvoiceId === invoiceId), { data: { byHand: true, reference: 'Cash at the counter', amount: 1200 } });
  t.same(pageErrors, [], 'no script errors');
  await context.close();
});
