import { readFile } from 'node:fs/promises';
import t from 'tap';
import type { Page } from 'playwright-core';
import { closeCampaignTransports } from '../../../src/adapters/mail/index.js';
import { buildApp, unique, type Owner } from '../../helpers/app.js';
import { chromiumSkip, launchBrowser, screenshot, seriousViolations, watchPageErrors } from '../../helpers/browser.js';
import { confirm, openSession, setupShop } from '../../helpers/checkout.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

/**
 * The "done means", in a real browser (Debian's chromium through playwright-core) against
 * the real service listening on a port with its workers: sign up, add a product with two variants,
 * import 1,000 customers watching the progress reach the end, send a campaign and see the sent
 * count, fulfil an order placed through the storefront API, invite a staff member and see their
 * reduced menu. Every screen is screenshotted (test-artifacts/console/) and checked with axe-core.
 */
t.setTimeout(300_000);

// The browser is a system package (`apt-get install chromium`, done by .ci/run): without it, a stated skip.
const skip = chromiumSkip();

t.test('an operator runs a store from the browser only', { skip }, async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(async () => {
    closeCampaignTransports();
    await smtp.stop();
  });
  const app = await buildApp(t, { workers: true, listen: true, env: { SMTP_URL: smtp.url } });
  const base = app.server.info.uri;
  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const page = await (await browser.newContext({ acceptDownloads: true })).newPage();
  const pageErrors = watchPageErrors(page);
  const checkScreen = async (name: string) => {
    await screenshot(page, name);
    t.same(await seriousViolations(page), [], `${name}: no serious or critical axe violations`);
  };
  const nav = (label: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true });
  const tag = unique('op');
  const email = `${tag}@example.com`;

  await t.test('sign up', async (t) => {
    await page.goto(`${base}/app`);
    await page.waitForURL(/\/app\/sign-in/);
    await checkScreen('01-sign-in');
    await page.getByRole('link', { name: 'Create a store' }).click();
    await page.getByLabel('First name').fill('Olive');
    await page.getByLabel('Last name').fill('Operator');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: false }).first().fill('correct horse battery');
    await page.getByLabel('Store name').fill(`Shop ${tag}`);
    await checkScreen('02-sign-up');
    await page.getByRole('button', { name: 'Create store' }).click();
    await page.getByRole('heading', { level: 1, name: `Shop ${tag}` }).waitFor();
    t.ok(await nav('Marketing').isVisible(), 'the owner sees Marketing');
    await checkScreen('03-home');
  });

  const owner = async (): Promise<Owner> => {
    const [accessToken, storeId] = await page.evaluate(() => {
      const storage = (globalThis as unknown as { localStorage: { getItem(key: string): string } }).localStorage;
      return [storage.getItem('sw.accessToken'), storage.getItem('sw.storeId')];
    });
    const created = await app.request({ method: 'POST', url: '/admin/store/storefront-tokens', payload: { name: 'test shop' }, token: accessToken, storeId });
    return { accessToken, store: { id: storeId, name: '', slug: '' }, storefrontToken: created.body.data.secret, user: { id: '', email }, email, password: '' };
  };

  let productId = '';
  await t.test('create a product with two variants', async (t) => {
    await nav('Products').click();
    await page.getByRole('link', { name: 'Add product' }).click();
    await page.getByLabel('Title').fill('Linen shirt');
    await page.getByLabel('Status').selectOption('active');
    await page.getByRole('button', { name: 'Add option' }).click();
    await page.getByLabel('Option 1 name').fill('Size');
    await page.getByLabel('Option 1 values').fill('S, M');
    await page.getByRole('button', { name: 'Make variants from options' }).click();
    await page.getByLabel('Price of S').fill('19.99');
    await page.getByLabel('Price of M').fill('21.50');
    await page.getByLabel('Stock of S').fill('5');
    await page.getByLabel('Stock of M').fill('7');
    await checkScreen('04-product-new');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.waitForURL(/\/app\/products\/[0-9a-f-]{36}$/);
    productId = page.url().split('/').at(-1)!;
    const { accessToken, store } = await owner();
    const saved = await app.request({ url: `/admin/products/${productId}`, token: accessToken, storeId: store.id });
    t.same(
      saved.body.data.product.variants.map((v: { title: string; price: number; inventoryQuantity: number }) => [v.title, v.price, v.inventoryQuantity]),
      [
        ['S', 1999, 5],
        ['M', 2150, 7]
      ],
      'two variants with their prices and stock'
    );
    await nav('Products').click();
    await page.getByRole('link', { name: 'Linen shirt' }).waitFor();
    await checkScreen('05-products');
  });

  await t.test('import 1,000 customers and watch the progress reach the end; export them', async (t) => {
    await nav('Customers').click();
    const rows = Array.from({ length: 1000 }, (_, i) => `imp${i}@example.com,Imported,Customer${i},${i < 40 ? 'subscribed' : 'not_subscribed'}`);
    rows.splice(500, 0, 'not-an-email,Bad,Row,subscribed');
    const csv = `email,firstName,lastName,emailMarketing\n${rows.join('\n')}\n`;
    const streams: string[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/events')) streams.push(`${response.status()} ${response.headers()['content-type']}`);
    });
    await page.locator('input[type=file]').setInputFiles({ name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const status = page.getByTestId('job-status').first();
    await status.filter({ hasText: 'completed, 100%' }).waitFor({ timeout: 60_000 });
    t.match(await page.getByTestId('import-result').textContent(), /1000 created/);
    t.match(await page.getByRole('table', { name: 'Rows not imported' }).textContent(), /502.*email/i, 'the bad row is reported with its line');
    t.match(streams[0], /^200 text\/event-stream/, 'progress came over server-sent events');
    await checkScreen('06-customers-imported');

    await page.getByRole('button', { name: 'Export to CSV' }).click();
    await page.getByTestId('job-status').filter({ hasText: 'Export: completed' }).waitFor({ timeout: 60_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const exported = await readFile(await download.path(), 'utf8');
    t.equal(exported.trim().split('\n').length, 1001, 'the export has a header and 1,000 customers');
  });

  await t.test('send a campaign and see the sent count', async (t) => {
    await nav('Marketing').click();
    await page.getByLabel('Subject').fill('Autumn news');
    await page.getByLabel('Message (plain text)').fill('New shirts are in.');
    const campaignStreams: string[] = [];
    page.on('response', (response) => {
      if (/campaigns\/[0-9a-f-]+\/events$/.test(response.url())) campaignStreams.push(`${response.status()} ${response.headers()['content-type']}`);
    });
    await page.getByRole('button', { name: 'Send newsletter' }).click();
    await page.getByTestId('campaign-counts').filter({ hasText: 'sent: 40 sent, 0 failed of 40 recipients' }).waitFor({ timeout: 60_000 });
    t.equal(smtp.messages.filter((m) => m.parsed.subject === 'Autumn news').length, 40, 'forty emails reached the SMTP server');
    t.match(campaignStreams[0], /^200 text\/event-stream/, 'the counts came over server-sent events');
    await checkScreen('07-marketing');
  });

  await t.test('discounts, reviews and storefront tokens screens', async (t) => {
    await nav('Discounts').click();
    await page.getByLabel('Code').fill('AUTUMN10');
    await page.getByLabel('Percent off').fill('10');
    await page.getByRole('button', { name: 'Create discount' }).click();
    await page.getByRole('cell', { name: 'AUTUMN10', exact: true }).waitFor();
    await page.getByLabel('Code').fill('autumn10');
    await page.getByLabel('Percent off').fill('5');
    await page.getByRole('button', { name: 'Create discount' }).click();
    const taken = page.getByRole('alert').or(page.locator('[id$="-error"]')).first();
    await taken.waitFor();
    t.match(await taken.textContent(), /code|taken|exists/i, 'a taken code shows the contract message');
    await checkScreen('07b-discounts');
    await nav('Reviews').click();
    await page.getByText('Nothing here.').waitFor();
    await checkScreen('07c-reviews');
    await nav('Storefront tokens').click();
    await page.getByLabel('Token name').fill('Mobile app');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.locator('code').filter({ hasText: /^swsf_/ });
    await shown.waitFor();
    t.match(await shown.textContent(), /^swsf_.{32,}$/, 'the new secret is shown once, in full');
    await checkScreen('07d-storefront-tokens');
    await nav('Collections').click();
    await page.getByLabel('Collection title').fill('Summer');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page.getByRole('cell', { name: 'Summer' }).waitFor();
    await checkScreen('07e-collections');
    await nav('Store settings').click();
    await page.getByLabel('Contact email').fill('owner@localhost');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const invalid = page.locator('[id$="-error"]').first();
    await invalid.waitFor();
    t.match(await invalid.textContent(), /email/i, 'the API says what is wrong, next to the field');
    await page.getByLabel('Contact email').fill('hello@example.com');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await checkScreen('07f-store-settings');
    await nav('API keys').click();
    await page.getByLabel('Key name').fill('Warehouse');
    await page.getByLabel('read_orders').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = page.locator('code').filter({ hasText: /^swk_/ });
    await key.waitFor();
    const listed = await app.request({ url: '/admin/orders', headers: { authorization: `Bearer ${await key.textContent()}` } });
    t.equal(listed.status, 200, 'the key created in the console reads orders');
    await checkScreen('07g-api-keys');
  });

  let orderNumber = 0;
  await t.test('fulfil an order placed through the storefront API', async (t) => {
    const shop = await owner();
    await setupShop(app, shop);
    const product = await app.request({ url: `/admin/products/${productId}`, token: shop.accessToken, storeId: shop.store.id });
    const variantId = product.body.data.product.variants[0].id as string;
    const { session } = await openSession(app, shop, [{ variantId, quantity: 2 }], { email: 'buyer@example.com' });
    t.equal(session.status, 201, 'checkout session opened');
    const placed = await confirm(app, shop, session.body.data.checkoutSession.id);
    t.equal(placed.status, 200, 'order placed through the storefront API');
    orderNumber = placed.body.data.order.number;

    await nav('Orders').click();
    await page.getByRole('link', { name: `#${orderNumber}` }).click();
    await page.getByLabel('Carrier').fill('UPS');
    await page.getByLabel('Tracking number').fill('1Z999AA10123456784');
    await checkScreen('08-order');
    t.equal(await page.getByTestId('customer-name').textContent(), 'Sam Shopper', 'the customer is named on the order');
    t.match(await page.getByTestId('shipping-address').textContent(), /1 Main St.*12345 Springfield.*US/s, 'with the address to ship to');
    t.ok(await page.getByRole('button', { name: 'Cancel order' }).isVisible(), 'an unfulfilled order can be cancelled');
    await page.getByRole('button', { name: 'Fulfil items' }).click();
    await page.getByTestId('fulfillment-status').filter({ hasText: /^Fulfilled$/ }).waitFor();
    t.equal(await page.getByRole('button', { name: 'Cancel order' }).count(), 0, 'no Cancel on a fulfilled order');
    await page.getByRole('button', { name: 'Mark as paid' }).click();
    await page.getByTestId('payment-status').filter({ hasText: /^Paid$/ }).waitFor();

    // A partial refund by amount, previewed first; the status reads as a person would say it.
    await page.getByRole('radio', { name: 'Amount' }).check();
    await page.getByLabel('Amount to refund').fill('5');
    await page.getByLabel('Refund reason').fill('Late delivery');
    await page.getByRole('button', { name: 'Preview refund' }).click();
    await page.getByTestId('refund-preview').filter({ hasText: /\$5\.00/ }).waitFor();
    await page.getByRole('button', { name: 'Refund $5.00' }).click();
    await page.getByTestId('payment-status').filter({ hasText: /^Partially refunded$/ }).waitFor();

    // Notes: an internal one added, edited and deleted; the timeline names who did what.
    await page.getByLabel('Note', { exact: true }).fill('Customer asked for gift wrap');
    await page.getByRole('button', { name: 'Add note' }).click();
    const note = page.getByTestId('note').filter({ hasText: 'gift wrap' });
    await note.waitFor();
    t.match(await note.textContent(), /Note by you.*Internal/s, 'the note says who wrote it and that it is internal');
    await note.getByRole('button', { name: 'Edit note' }).click();
    await page.getByLabel('Edit note').fill('Gift wrap in blue');
    await page.getByLabel("Public (shown on the customer's tracking page)").last().check();
    await page.getByRole('button', { name: 'Save note' }).click();
    await page.getByTestId('note').filter({ hasText: 'Gift wrap in blue' }).filter({ hasText: 'Public' }).waitFor();
    t.match(await page.getByRole('list', { name: 'Timeline' }).textContent(), /Refunded by you/, 'the refund is on the timeline with its actor');
    const order = await app.request({ url: `/admin/orders/${placed.body.data.order.id}`, token: shop.accessToken, storeId: shop.store.id });
    t.match(order.body.data.order, {
      fulfillmentStatus: 'fulfilled',
      paymentStatus: 'partially_refunded',
      amountRefunded: 500,
      fulfillments: [{ trackingCompany: 'UPS', trackingNumber: '1Z999AA10123456784' }]
    });
    await checkScreen('09-order-fulfilled');
    await page.getByTestId('note').getByRole('button', { name: 'Delete note' }).click();
    await page.getByTestId('note').waitFor({ state: 'detached' });
  });

  await t.test('invite a staff member, who sees the reduced menu', async (t) => {
    const staffEmail = `${unique('staff')}@example.com`;
    await nav('Team').click();
    await page.getByLabel('Email to invite').fill(staffEmail);
    await page.getByLabel('Role').selectOption('staff');
    await page.getByRole('button', { name: 'Send invite' }).click();
    await page.getByRole('cell', { name: staffEmail }).waitFor();
    await checkScreen('10-team');
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes(staffEmail));
    const token = decodeURIComponent(/accept-invite\?token=([A-Za-z0-9_%-]+)/.exec(mail.parsed.text ?? '')![1]!);

    const staff = await (await browser.newContext()).newPage();
    await staff.goto(`${base}/app/accept-invite?token=${encodeURIComponent(token)}`);
    await staff.getByLabel('First name').fill('Sid');
    await staff.getByLabel('Last name').fill('Staff');
    await staff.getByLabel('Password').first().fill('staff password long');
    await staff.getByRole('button', { name: 'Accept invite' }).click();
    const menu = staff.getByRole('navigation', { name: 'Main' }).getByRole('link');
    await menu.first().waitFor();
    // Staff take phone orders (the role matrix lets them draft), so Draft orders is theirs too.
    t.same(await menu.allTextContents(), ['Home', 'Orders', 'Draft orders', 'Products', 'Collections', 'Customers', 'Reviews'], 'staff see catalog, orders and drafts, customers and reviews only');
    await staff.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Customers' }).click();
    await staff.getByRole('heading', { name: 'Customers' }).waitFor();
    t.equal(await staff.getByRole('button', { name: 'Import', exact: true }).count(), 0, 'no import for staff');
    await screenshot(staff, '11-staff-customers');
    t.same(await seriousViolations(staff), [], 'staff screen: no serious or critical axe violations');

    // A 401 (the token no longer valid) returns to sign-in, then back to where the operator was.
    await staff.evaluate(() => (globalThis as unknown as { localStorage: { setItem(key: string, value: string): void } }).localStorage.setItem('sw.accessToken', 'expired.token.value'));
    await staff.goto(`${base}/app/orders`);
    await staff.waitForURL(/\/app\/sign-in\?next=%2Forders/);
    await staff.getByLabel('Email').fill(staffEmail);
    await staff.getByLabel('Password').first().fill('staff password long');
    await staff.getByRole('button', { name: 'Sign in' }).click();
    await staff.waitForURL(/\/app\/orders$/);
    await staff.getByRole('link', { name: `#${orderNumber}` }).waitFor();
  });

  t.same(pageErrors, [], 'no Content-Security-Policy refusal or uncaught error in the page');
});
