import t from 'tap';
import { axeViolations, chromiumSkip, launchBrowser, screenshot, signIn, watchPageErrors } from '../../helpers/browser.js';
import { splitPaidShop } from '../../helpers/split-payments.js';
import { deliverStripeEvent as deliver, stripeEvent as event, stripeEventHandled as processed } from '../../helpers/stripe-events.js';

/**
 * A disputed payment shows on the order page: how much, why, where it stands and by when to answer
 * in Stripe's dashboard; while it is open, refunds are said to be refused; once lost, the amount is
 * said to be no longer refundable. The dispute arrives as Stripe sends it (a signed event).
 */
t.setTimeout(240_000);

const skip = chromiumSkip();

t.test('the order page shows a dispute of its payment, open and then lost', { skip }, async (t) => {
  const { app, owner, accountId, paid } = await splitPaidShop(t, { title: 'Vase', email: 'vase@example.com', listen: true });
  const base = app.server.info.uri;
  const now = Math.floor(Date.now() / 1000);
  const dispute = {
    id: 'dp_console',
    object: 'dispute',
    amount: 700,
    currency: 'usd',
    payment_intent: paid.firstIntent,
    reason: 'product_not_received',
    status: 'needs_response',
    evidence_details: { due_by: now + 5 * 86_400 }
  };
  const opened = event('charge.dispute.created', dispute, accountId);
  opened.created = now;
  await deliver(app, opened);
  t.equal((await processed(app, opened.id)).status, 'processed');

  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const pageErrors = watchPageErrors(page);
  await signIn(page, base, owner);
  await page.goto(`${base}/app/orders/${paid.order.id}`);
  const shown = page.getByTestId('dispute');
  await shown.waitFor();
  const text = await shown.innerText();
  t.match(text, /Disputed \$7\.00: needs response/);
  t.match(text, /Reason: product not received/);
  t.match(text, /answer in Stripe's dashboard by/);
  t.match(text, /refunds are refused until the dispute closes/);
  t.ok(await page.getByText('Dispute opened').first().isVisible(), 'the timeline has the opening');
  await screenshot(page, 'order-dispute-open');
  t.same(await axeViolations(page), [], 'the order page with a dispute: axe finds nothing');

  const lost = event('charge.dispute.closed', { ...dispute, status: 'lost' }, accountId);
  lost.created = now + 1;
  await deliver(app, lost);
  await processed(app, lost.id);
  await page.reload();
  await page.getByTestId('dispute').filter({ hasText: 'lost' }).waitFor();
  t.match(await page.getByTestId('dispute').innerText(), /the bank kept this amount: it is no longer refundable/);
  t.notMatch(await page.getByTestId('dispute').innerText(), /answer in Stripe's dashboard/, 'nothing to answer once closed');
  t.same(pageErrors, [], 'no script errors');
  await context.close();
});
