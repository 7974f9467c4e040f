import t from 'tap';
import { closeCampaignTransports } from '../../../src/adapters/mail/index.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { chromiumSkip, launchBrowser, press, screenshot, seriousViolations, watchPageErrors } from '../../helpers/browser.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

/**
 * The console's second round of screens in a real browser (Debian's chromium through playwright-core)
 * against the real service with its workers: webhooks (create, ping, the delivery log), returns on a
 * fulfilled order (request, receive with restock and refund), a customer's detail (open from the list,
 * edit). Every screen is screenshotted (test-artifacts/console/) and checked with axe-core.
 */
t.setTimeout(240_000);

const skip = chromiumSkip();

t.test('an operator manages webhooks, returns and customers from the browser', { skip }, async (t) => {
  t.teardown(() => closeCampaignTransports());
  const app = await buildApp(t, { workers: true, listen: true, env: { ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', WEBHOOK_RETRY_BASE_MS: '50', OUTBOX_POLL_MS: '100' } });
  const base = app.server.info.uri;
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Mug', [{ price: 1500, stock: 5 }]);
  const variantId = product.variants[0]!.id;
  const { session } = await openSession(app, owner, [{ variantId, quantity: 2 }], { email: 'buyer@example.com' });
  const placed = await confirm(app, owner, session.body.data.checkoutSession.id);
  t.equal(placed.status, 200, 'order placed through the storefront API');
  const order = placed.body.data.order as { id: string; number: number };
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/fulfillments`, payload: { notifyCustomer: false }, ...admin(owner) })).status, 201, 'fulfilled');
  t.equal((await app.request({ method: 'POST', url: `/admin/orders/${order.id}/mark-paid`, payload: {}, ...admin(owner) })).status, 200, 'paid');

  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const page = await (await browser.newContext()).newPage();
  const pageErrors = watchPageErrors(page);
  const checkScreen = async (name: string) => {
    await screenshot(page, name);
    t.same(await seriousViolations(page), [], `${name}: no serious or critical axe violations`);
  };
  const nav = (label: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true });
  await page.goto(`${base}/app/sign-in`);
  await page.evaluate(([token, storeId]) => {
    const storage = (globalThis as unknown as { localStorage: { setItem(key: string, value: string): void } }).localStorage;
    storage.setItem('sw.accessToken', token!);
    storage.setItem('sw.storeId', storeId!);
  }, [owner.accessToken, owner.store.id]);
  await page.goto(`${base}/app/`);
  await nav('Webhooks').waitFor();

  await t.test('a webhook created then pinged shows a delivery in the log', async (t) => {
    const receiver = await startReceiver(t, () => ({ status: 200, body: 'pong from receiver' }));
    await nav('Webhooks').click();
    await page.getByLabel('Endpoint URL').fill('not a url');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const invalid = page.locator('[id$="-error"]').first();
    await invalid.waitFor();
    t.match(await invalid.textContent(), /url|uri/i, 'the API says what is wrong, next to the field');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('order.paid').check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = page.locator('code').filter({ hasText: /^whsec_/ });
    await secret.waitFor();
    t.match(await secret.textContent(), /^whsec_.{16,}$/, 'the signing secret is shown once, in full');
    await page.getByRole('button', { name: `Ping ${receiver.url}` }).click();
    const row = page.getByTestId('webhook-delivery').filter({ hasText: 'succeeded' });
    await row.waitFor({ timeout: 30_000 });
    const text = await row.textContent();
    t.match(text, /ping/, 'the event is shown');
    t.match(text, /200/, 'with its status code');
    t.match(text, /pong from receiver/, 'and the answer excerpt');
    t.equal(receiver.received.length, 1, 'the receiver got the ping');
    t.match(JSON.parse(receiver.received[0]!.body), { topic: 'ping' });
    await page.getByRole('button', { name: /^Redeliver ping/ }).click();
    await page.getByTestId('webhook-delivery').nth(1).waitFor({ timeout: 30_000 });
    await page.getByTestId('webhook-delivery').filter({ hasText: 'succeeded' }).nth(1).waitFor({ timeout: 30_000 });
    t.equal(receiver.received.length, 2, 'redelivered');
    await checkScreen('20-webhooks');
    const hooks = await app.request({ url: '/admin/store/webhooks', ...admin(owner) });
    t.same(hooks.body.data.webhooks[0].topics.sort(), ['order.created', 'order.paid'], 'created with the checked topics');
    await page.getByRole('button', { name: `Disable ${receiver.url}` }).click();
    await page.getByRole('button', { name: `Enable ${receiver.url}` }).waitFor();
    const disabled = await app.request({ url: '/admin/store/webhooks', ...admin(owner) });
    t.equal(disabled.body.data.webhooks[0].enabled, false, 'disabled through the console');
    const first = await secret.textContent();
    await page.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
    await page.locator('code').filter({ hasText: /^whsec_/ }).filter({ hasNotText: first! }).waitFor();
    await page.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    await page.getByRole('cell', { name: receiver.url, exact: true }).waitFor({ state: 'detached' });
    t.same((await app.request({ url: '/admin/store/webhooks', ...admin(owner) })).body.data.webhooks, [], 'deleted through the console');
  });

  await t.test('a return requested and received on a fulfilled order', async (t) => {
    await nav('Orders').click();
    await page.getByRole('link', { name: `#${order.number}` }).click();
    await page.getByLabel(/^Return quantity of/).fill('1');
    await page.getByLabel('Return reason').fill('Chipped');
    await page.getByRole('button', { name: 'Request return' }).click();
    await page.getByTestId('return-status').filter({ hasText: /^requested$/ }).waitFor();
    await checkScreen('21-order-return-requested');
    await page.getByLabel('Refund the returned items').check();
    await page.getByRole('button', { name: 'Receive return' }).click();
    await page.getByTestId('return-status').filter({ hasText: /^closed$/ }).waitFor();
    const after = await app.request({ url: `/admin/orders/${order.id}`, ...admin(owner) });
    t.equal(after.body.data.order.amountRefunded, 1500, 'the returned unit was refunded');
    t.equal(after.body.data.order.items[0].returnedQuantity, 1, 'one unit returned');
    const stocked = await app.request({ url: `/admin/products/${product.id}`, ...admin(owner) });
    t.equal(stocked.body.data.product.variants[0].inventoryQuantity, 4, 'the returned unit is back in stock (5 - 2 + 1)');
    await checkScreen('22-order-return-received');
  });

  await t.test('a customer detail opened and edited', async (t) => {
    await nav('Customers').click();
    // The import and export cards come in once the member's role is known and push the list down.
    await page.getByRole('heading', { name: 'Export customers' }).waitFor();
    await press(page.getByRole('link', { name: 'buyer@example.com' }));
    await page.getByTestId('customer-figures').filter({ hasText: /^1 orders/ }).waitFor();
    t.match(await page.getByTestId('customer-figures').textContent(), /\$30\.00 spent/, 'orders count and total');
    await page.getByLabel('First name').fill('Bea');
    await page.getByLabel('Last name').fill('Buyer');
    await page.getByLabel('Tags (comma separated)').fill('vip, wholesale');
    await page.getByLabel('Email marketing').selectOption('subscribed');
    await page.getByRole('button', { name: 'Save customer' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Bea Buyer' }).waitFor();
    const listed = await app.request({ url: '/admin/customers?q=buyer@example.com', ...admin(owner) });
    t.match(listed.body.data.customers[0], { firstName: 'Bea', lastName: 'Buyer', tags: ['vip', 'wholesale'], emailMarketing: 'subscribed' }, 'saved through the API');
    await checkScreen('23-customer-detail');
  });

  await t.test('email templates with a rendered preview; lists and an audience preview', async (t) => {
    await nav('Email templates').click();
    await page.getByLabel('Template name').fill('Welcome back');
    await page.getByLabel('Email subject').fill('Hi {{ customer.firstName }}');
    await page.getByLabel('HTML (Liquid)').fill('<h1>Hello {{ customer.firstName }} from {{ store.name }}</h1>');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByTestId('preview-subject').filter({ hasText: 'Subject: Hi Jane' }).waitFor();
    const frame = page.frameLocator('iframe[title="Rendered email"]');
    t.match(await frame.locator('h1').textContent(), /^Hello Jane from /, 'the HTML is rendered by the API with sample data');
    await page.getByRole('cell', { name: 'Welcome back', exact: true }).waitFor();
    await checkScreen('24-email-templates');
    await page.getByLabel('HTML (Liquid)').fill('{% if %}');
    await page.getByLabel('Template name').fill('Broken');
    await page.getByLabel('Email subject').fill('Broken');
    await page.getByRole('button', { name: 'Create template' }).click();
    const invalid = page.locator('[id$="-error"]').or(page.getByRole('alert')).first();
    await invalid.waitFor();
    t.match(await invalid.textContent(), /liquid|tag|line|html|syntax/i, 'a Liquid error shows the API message');

    await nav('Lists and audiences').click();
    await page.getByLabel('List name').fill('VIP');
    await page.getByRole('button', { name: 'Create list' }).click();
    await page.getByRole('cell', { name: 'VIP', exact: true }).waitFor();
    await page.getByLabel('Customer tags (comma separated)').fill('vip');
    await page.getByRole('button', { name: 'Preview audience' }).click();
    await page.getByTestId('audience-count').filter({ hasText: '1 subscribed customers' }).waitFor();
    t.match(await page.getByRole('listitem').filter({ hasText: 'buyer@example.com' }).textContent(), /Bea Buyer/, 'the sample names the subscribed vip customer');
    await checkScreen('25-audiences');
  });

  await t.test('email settings with send test; domain with its DNS records; payments onboarding status', async (t) => {
    const smtp = await new SmtpCapture().start();
    t.teardown(() => smtp.stop());
    await nav('Email').click();
    await page.getByLabel('Sender name').fill('Lumen');
    await page.getByLabel('Sender email').fill('not an email');
    await page.getByLabel('SMTP host').fill('127.0.0.1');
    await page.getByLabel('SMTP port').fill(String(smtp.port));
    await page.getByLabel('SMTP user').fill('mailer');
    await page.getByLabel('SMTP password').fill('s3cret-smtp-pass');
    await page.getByRole('button', { name: 'Save email settings' }).click();
    const invalid = page.locator('[id$="-error"]').first();
    await invalid.waitFor();
    t.match(await invalid.textContent(), /email/i, 'a bad sender address shows the API message under the field');
    await page.getByLabel('Sender email').fill('hello@lumen.example');
    await page.getByRole('button', { name: 'Save email settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await page.getByRole('button', { name: 'Check the connection' }).click();
    await page.getByTestId('email-verify').filter({ hasText: 'smtp: ok' }).waitFor();
    await page.getByLabel('Send a test email to').fill('ops@example.com');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByTestId('email-test').filter({ hasText: 'ops@example.com' }).waitFor();
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes('ops@example.com'));
    t.match(mail.parsed.from?.text, /hello@lumen\.example/, 'the test email went through the store SMTP server from its sender');
    await checkScreen('26-email-settings');

    await nav('Domain and payments').click();
    await page.getByLabel('Hostname').fill('shop.lumen.example');
    await page.getByRole('button', { name: 'Connect domain' }).click();
    await page.getByTestId('domain-status').filter({ hasText: 'pending' }).waitFor();
    const records = await page.getByTestId('dns-record').allTextContents();
    t.equal(records.length, 2, 'two records to add');
    t.match(records.join(' '), /CNAME.*TXT|TXT.*CNAME/, 'a CNAME and a TXT record');
    t.match(await page.getByTestId('payments-status').textContent(), /not connected/, 'payments onboarding status');
    await page.getByRole('button', { name: 'Set up payments' }).waitFor();
    await checkScreen('27-domain-payments');
  });

  await t.test('a product image uploaded and attached', async (t) => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    await nav('Products').click();
    await page.getByRole('link', { name: 'Mug' }).click();
    await page.locator('input[type=file]').setInputFiles({ name: 'mug.png', mimeType: 'image/png', buffer: png });
    await page.getByLabel('Alternative text').fill('A white mug');
    await page.getByRole('button', { name: 'Upload image' }).click();
    const image = page.getByTestId('product-image').getByRole('img', { name: 'A white mug' });
    await image.waitFor();
    await page.waitForFunction(() => {
      const img = (globalThis as unknown as { document: { querySelector(s: string): { complete: boolean; naturalWidth: number } | null } }).document.querySelector('[data-testid=product-image] img');
      return img?.complete && img.naturalWidth === 1;
    });
    const saved = await app.request({ url: `/admin/products/${product.id}`, ...admin(owner) });
    t.match(saved.body.data.product.media, [{ alt: 'A white mug', contentType: 'image/png', width: 1, height: 1 }], 'the image is attached to the product');
    await checkScreen('28-product-media');
  });

  t.same(pageErrors, [], 'no Content-Security-Policy refusal or uncaught error in the page');
});
