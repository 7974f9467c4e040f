import t from 'tap';
import { admin } from '../../helpers/catalog.js';
import { axeViolations, chromiumSkip, launchBrowser, screenshot, signIn, watchPageErrors } from '../../helpers/browser.js';
import { splitPaidShop } from '../../helpers/split-payments.js';

/**
 * A refund Stripe left pending (its later part refused after the first was paid back) shows on the
 * order page as waiting on Stripe, with how many payments were paid back; "Ask Stripe again" says
 * what Stripe answered while it still refuses, and settles the refund once it accepts. Read back
 * through the API and the Stripe server.
 */
t.setTimeout(240_000);

const skip = chromiumSkip();

t.test('a pending refund is asked of Stripe again from the order page', { skip }, async (t) => {
  const { stripe, app, owner, paid } = await splitPaidShop(t, { title: 'Jug', email: 'jug@example.com', listen: true });
  const base = app.server.info.uri;
  stripe.refusingRefundsOf.add(paid.firstIntent);
  const refused = await app.request({ method: 'POST', url: `/admin/orders/${paid.order.id}/refunds`, payload: { amount: 1500, reason: 'Chipped', notifyCustomer: false }, ...admin(owner) });
  t.equal(refused.status, 502, 'the balance paid back, the first payment refused');

  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const pageErrors = watchPageErrors(page);
  await signIn(page, base, owner);
  await page.goto(`${base}/app/orders/${paid.order.id}`);
  const pending = page.getByTestId('pending-refund');
  await pending.waitFor();
  t.match(await pending.innerText(), /Waiting on Stripe \(1 of 2 payments paid back\)/);
  await screenshot(page, 'refund-retry-pending');
  t.same(await axeViolations(page), [], 'the order page with a pending refund: axe finds nothing');

  // Still refused: the error in words, the refund still pending.
  await pending.getByRole('button', { name: 'Ask Stripe again' }).click();
  await page.getByText(/Stripe could not refund the payment/).waitFor();
  t.equal((await app.ctx.db('orderRefunds').where({ storeId: owner.store.id, orderId: paid.order.id }).first()).status, 'pending');

  // Accepted: the refund settles and the page says so.
  stripe.refusingRefundsOf.delete(paid.firstIntent);
  await pending.getByRole('button', { name: 'Ask Stripe again' }).click();
  await page.getByTestId('refund').filter({ hasText: 'succeeded' }).waitFor();
  t.equal(await page.getByTestId('pending-refund').count(), 0, 'nothing left to ask');
  t.match(await page.getByTestId('payment-summary').innerText(), /refunded/i);
  const order = (await app.request({ url: `/admin/orders/${paid.order.id}`, ...admin(owner) })).body.data.order;
  t.match(order.refunds, [{ status: 'succeeded', amount: 1500 }]);
  t.equal(stripe.refundedOf(paid.firstIntent), 300);
  t.equal(stripe.refundedOf(paid.balanceIntent), 1200);
  t.same(pageErrors, [], 'no script errors');
  await context.close();
});
