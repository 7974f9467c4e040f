import { gzipSync } from 'node:zlib';
import t from 'tap';
import type { Browser, Page } from 'playwright-core';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { buildApp, signupOwner, type Owner } from '../../helpers/app.js';
import { axeViolations, chromiumSkip, launchBrowser, screenshot, signIn, watchPageErrors } from '../../helpers/browser.js';

/**
 * Issue #37 in chromium: the screens an operator needs beyond the first flow (order detail with
 * customer, address, partial refunds and notes; collection products; discount edit and deactivate;
 * customers made by hand and deleted; product delete; list members; a campaign to a list from a
 * template; template edit; shipping methods; jobs), walked at 1360 px and at 390 px. At 390 px the
 * menu is behind a burger that opens and closes (and closes on navigation). Every screen is
 * screenshotted and axe-core finds no violation of any impact on it; focus lands on each screen's
 * heading; a skip link leads to the main content; the first load of /app stays under 200 KB gzip.
 */
t.setTimeout(420_000);

const skip = chromiumSkip();
const FIRST_LOAD_BUDGET = 200 * 1024;

/** The gzip size of what the browser fetched from the console (HTML, scripts, styles) to show a page the first time. */
async function firstLoadBytes(browser: Browser, url: string, before?: (page: Page) => Promise<void>): Promise<{ bytes: number; files: number }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (before) await before(page);
  const bodies: Array<Promise<Buffer>> = [];
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    if (path.startsWith('/app') && response.status() === 200) bodies.push(response.body().catch(() => Buffer.alloc(0)));
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  const all = await Promise.all(bodies);
  await context.close();
  return { bytes: all.reduce((sum, body) => sum + gzipSync(body).length, 0), files: all.length };
}

t.test('the console screens at 1360 px and 390 px', { skip }, async (t) => {
  const app = await buildApp(t, { listen: true });
  const base = app.server.info.uri;
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const mug = await sellable(app, owner, 'Mug', [{ price: 1500, stock: 9 }]);
  const placeOrder = async (email: string) => {
    const { session } = await openSession(app, owner, [{ variantId: mug.variants[0]!.id, quantity: 2 }], { email });
    const placed = await confirm(app, owner, session.body.data.checkoutSession.id);
    t.equal(placed.status, 200, 'an order placed through the storefront API');
    return placed.body.data.order as { id: string; number: number };
  };
  const browser = await launchBrowser();
  t.teardown(() => browser.close());

  await t.test('the first load of /app stays under 200 KB gzip', async (t) => {
    const signInPage = await firstLoadBytes(browser, `${base}/app/sign-in`);
    t.ok(signInPage.bytes < FIRST_LOAD_BUDGET, `sign-in: ${signInPage.bytes} bytes gzip in ${signInPage.files} files`);
    const home = await firstLoadBytes(browser, `${base}/app/`, async (page) => signIn(page, base, owner));
    t.ok(home.bytes < FIRST_LOAD_BUDGET, `home, signed in: ${home.bytes} bytes gzip in ${home.files} files`);
  });

  for (const width of [1360, 390]) {
    const phone = width < 600;
    const tag = `${width}`;
    await t.test(`every screen at ${width} px`, async (t) => {
      const order = await placeOrder(`buyer-${tag}@example.com`);
      // Reduced motion: the menu opens without its slide, so a screenshot shows it where it stops.
      const context = await browser.newContext({ viewport: { width, height: phone ? 844 : 900 }, reducedMotion: 'reduce' });
      const page = await context.newPage();
      const pageErrors = watchPageErrors(page);
      const checkScreen = async (name: string) => {
        await screenshot(page, `${tag}-${name}`);
        t.same(await axeViolations(page), [], `${name} at ${width} px: axe finds nothing`);
      };
      const menu = page.getByRole('navigation', { name: 'Main' });
      const go = async (label: string, heading: string | RegExp = label) => {
        if (phone) {
          await page.getByRole('button', { name: 'Open menu' }).click();
          await menu.getByRole('link', { name: label, exact: true }).waitFor();
        }
        await menu.getByRole('link', { name: label, exact: true }).click();
        const h1 = page.getByRole('heading', { level: 1, name: heading });
        await h1.waitFor();
        if (phone) await menu.getByRole('link', { name: label, exact: true }).waitFor({ state: 'hidden' });
        await page.waitForFunction(() => (globalThis as unknown as { document: { activeElement: { tagName: string } | null } }).document.activeElement?.tagName === 'H1');
      };

      await signIn(page, base, owner);
      await page.goto(`${base}/app/`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();

      await t.test('menu, skip link and focus', async (t) => {
        await page.keyboard.press('Tab');
        t.equal(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement.textContent), 'Skip to main content', 'the first Tab reaches the skip link');
        await page.keyboard.press('Enter');
        t.equal(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id), 'main', 'which moves focus to the main content');
        if (phone) {
          t.notOk(await menu.getByRole('link', { name: 'Orders', exact: true }).isVisible(), 'the menu starts closed on a phone');
          t.notOk(await page.getByRole('button', { name: 'Sign out' }).isVisible(), 'nothing covers the page');
          await page.getByRole('button', { name: 'Open menu' }).click();
          await menu.getByRole('link', { name: 'Orders', exact: true }).waitFor();
          t.ok(await menu.getByRole('button', { name: 'Sign out' }).isVisible(), 'sign-out is in the open menu');
          t.ok(await menu.getByLabel('Store').isVisible(), 'and the store switcher');
          await checkScreen('menu-open');
          await page.getByRole('button', { name: 'Close menu' }).click();
          await menu.getByRole('link', { name: 'Orders', exact: true }).waitFor({ state: 'hidden' });
          t.pass('the burger closes the menu');
        } else {
          t.ok(await menu.getByRole('link', { name: 'Orders', exact: true }).isVisible(), 'the menu is always there on a desk');
          t.equal(await page.getByRole('button', { name: 'Open menu' }).count(), 0, 'no burger');
        }
        await page.getByRole('img', { name: /^Sales per day over the last 30 days: \$[0-9.,]+ in total/ }).waitFor();
        t.ok(await page.getByRole('img', { name: /^Orders per day over the last 30 days/ }).isVisible(), 'sales and orders over 30 days, drawn and said in words');
        await checkScreen('home');
        await page.getByTestId('attention').getByRole('link', { name: /orders to fulfil/ }).click();
        await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
        t.equal(await page.getByLabel('Fulfilment').inputValue(), 'unfulfilled', 'what needs attention opens the list filtered');
      });

      await t.test('orders: the order as an operator reads it; a partial refund by line; a note', async (t) => {
        await go('Orders');
        t.match(await page.getByTestId('sort-order').textContent(), /Sorted by date placed, descending/);
        await checkScreen('orders');
        await page.getByRole('link', { name: `#${order.number}` }).click();
        await page.getByRole('heading', { level: 1, name: `Order #${order.number}` }).waitFor();
        t.equal(await page.getByTestId('customer-name').textContent(), 'Sam Shopper', 'the customer is named');
        t.match(await page.getByTestId('shipping-address').textContent(), /1 Main St/, 'with the address');
        t.equal(await page.getByTestId('payment-status').textContent(), 'Pending', 'human status labels');
        await page.getByRole('button', { name: 'Mark as paid' }).click();
        await page.getByTestId('payment-status').filter({ hasText: /^Paid$/ }).waitFor();
        await page.getByLabel('Refund quantity of Mug').fill('1');
        await page.getByLabel('Restock Mug').check();
        await page.getByLabel('Refund reason').fill('Broken in transit');
        await page.getByRole('button', { name: 'Preview refund' }).click();
        await page.getByTestId('refund-preview').filter({ hasText: /\$15\.00/ }).waitFor();
        await checkScreen('order-refund-preview');
        await page.getByRole('button', { name: 'Refund $15.00' }).click();
        await page.getByTestId('payment-status').filter({ hasText: /^Partially refunded$/ }).waitFor();
        t.match(await page.getByTestId('line-state').textContent(), /1 refunded.*1 restocked/, 'the line says what was refunded and restocked');
        const stock = (await app.request({ url: `/admin/products/${mug.id}`, ...admin(owner) })).body.data.product.variants[0].inventoryQuantity;
        t.ok(stock > 0, 'the refunded unit went back in stock');
        await page.getByLabel('Note', { exact: true }).fill(`Call before delivery ${tag}`);
        await page.getByRole('button', { name: 'Add note' }).click();
        await page.getByTestId('note').filter({ hasText: `Call before delivery ${tag}` }).waitFor();
        t.ok(await page.getByRole('button', { name: 'Cancel order' }).isVisible(), 'an unfulfilled order can be cancelled');
        await checkScreen('order');
      });

      await t.test('products: sorted list; a product deleted', async (t) => {
        const spare = await sellable(app, owner, `Spare ${tag}`, [{ price: 500, stock: 1 }]);
        await go('Products');
        await page.getByRole('button', { name: /^Product/ }).click();
        await page.getByTestId('sort-order').filter({ hasText: 'Sorted by title, ascending' }).waitFor();
        await checkScreen('products');
        await page.getByRole('link', { name: `Spare ${tag}` }).click();
        await page.getByRole('heading', { level: 1, name: `Spare ${tag}` }).waitFor();
        // The API says `variants[0].price`; the operator reads "Variant 1 price".
        await page.getByLabel('Price of Default').fill('-1');
        await page.getByRole('button', { name: 'Save product' }).click();
        const invalid = page.locator('[id$="-error"]').first();
        await invalid.waitFor();
        t.match(await invalid.textContent(), /^Variant 1 price /, 'the field is named as a person would');
        t.notMatch(await page.locator('main').textContent(), /variants\[0\]|variants\.0/, 'no API path on the screen');
        await page.getByRole('button', { name: 'Delete product' }).click();
        await page.getByRole('button', { name: 'Yes, delete the product' }).click();
        await page.getByRole('heading', { level: 1, name: 'Products' }).waitFor();
        t.equal((await app.request({ url: `/admin/products/${spare.id}`, ...admin(owner) })).status, 404, 'deleted');
      });

      await t.test('collections: create, add a product, edit, remove it', async (t) => {
        await go('Collections');
        await page.getByLabel('Collection title').fill(`Kitchen ${tag}`);
        await page.getByRole('button', { name: 'Create collection' }).click();
        await page.getByRole('link', { name: `Kitchen ${tag}` }).click();
        await page.getByRole('heading', { level: 1, name: `Kitchen ${tag}` }).waitFor();
        await page.getByLabel('Find a product to add').fill('Mug');
        await page.getByRole('button', { name: 'Add Mug' }).click();
        await page.getByRole('table', { name: 'Products in this collection' }).getByRole('cell', { name: 'Mug', exact: true }).waitFor();
        await page.getByLabel('Collection title').fill(`Kitchen things ${tag}`);
        await page.getByRole('button', { name: 'Save collection' }).click();
        await page.getByRole('heading', { level: 1, name: `Kitchen things ${tag}` }).waitFor();
        await checkScreen('collection');
        await page.getByRole('button', { name: 'Remove Mug' }).click();
        await page.getByTestId('empty-state').waitFor();
      });

      await t.test('customers: one made by hand, a duplicate refused, then deleted', async (t) => {
        await go('Customers');
        await page.getByLabel('Customer email').fill(`hand-${tag}@example.com`);
        await page.getByLabel('First name').fill('Hana');
        await page.getByLabel('Last name').fill('Hand');
        await page.getByRole('button', { name: 'Create customer' }).click();
        await page.getByRole('heading', { level: 1, name: 'Hana Hand' }).waitFor();
        await checkScreen('customer');
        await go('Customers');
        await page.getByLabel('Customer email').fill(`hand-${tag}@example.com`);
        await page.getByRole('button', { name: 'Create customer' }).click();
        const taken = page.locator('[id$="-error"]').first();
        await taken.waitFor();
        t.match(await taken.textContent(), /taken/, 'a duplicate email is refused next to the field');
        await checkScreen('customers');
        await page.getByRole('link', { name: `hand-${tag}@example.com` }).click();
        await page.getByRole('button', { name: 'Delete customer' }).click();
        await page.getByRole('button', { name: 'Yes, delete the customer' }).click();
        await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
        t.equal((await app.request({ url: `/admin/customers?q=hand-${tag}`, ...admin(owner) })).body.data.customers.length, 0, 'deleted');
      });

      await t.test('discounts: edited and deactivated', async (t) => {
        await go('Discounts');
        await page.getByLabel('Code').fill(`SAVE${tag}`);
        await page.getByLabel('Percent off').fill('10');
        await page.getByRole('button', { name: 'Create discount' }).click();
        await page.getByRole('button', { name: `Edit SAVE${tag}` }).click();
        await page.getByLabel('Percent off').fill('15');
        await page.getByRole('button', { name: 'Save discount' }).click();
        // This discount's row: at 390 px the 1360 px run's discount already shows 15%, and waiting on
        // any such cell let Deactivate (which sends the row as listed, 10%) race the save.
        await page.getByRole('row').filter({ hasText: `SAVE${tag}` }).getByRole('cell', { name: '15%' }).waitFor();
        await page.getByRole('button', { name: `Deactivate SAVE${tag}` }).click();
        // Exact: "Activate SAVE…" is also inside "Deactivate SAVE…", which would match before the change took.
        await page.getByRole('button', { name: `Activate SAVE${tag}`, exact: true }).waitFor();
        const listed = (await app.request({ url: '/admin/discounts', ...admin(owner) })).body.data.discounts.find((d: { code: string }) => d.code === `SAVE${tag}`);
        t.match(listed, { value: 15, isActive: false }, 'saved through the API');
        // The search (issue #37) asks the API once typing pauses: no match, then the code again.
        await page.getByLabel('Search discounts').fill('no-such-code');
        await page.getByTestId('empty-state').filter({ hasText: 'No discount code matches' }).waitFor();
        await page.getByLabel('Search discounts').fill(`save${tag}`);
        await page.getByRole('button', { name: `Edit SAVE${tag}` }).waitFor();
        await checkScreen('discounts');
      });

      await t.test('marketing: a template edited, a list with a member, a campaign to the list', async (t) => {
        await go('Email templates');
        await page.getByLabel('Template name').fill(`Offer ${tag}`);
        await page.getByLabel('Email subject').fill('An offer');
        await page.getByRole('button', { name: 'Create template' }).click();
        // The saved template's preview opens above the list on a phone. Seen here at 390 px: Playwright's
        // own scroll-then-click put the click on the preview's iframe (the page was still settling its
        // scroll), so the row is scrolled to first and the heading proves the click took.
        await page.getByTestId('preview-subject').filter({ hasText: 'Subject: An offer' }).waitFor();
        const editOffer = page.getByRole('button', { name: `Edit Offer ${tag}` });
        await editOffer.scrollIntoViewIfNeeded();
        await editOffer.click();
        await page.getByRole('heading', { name: 'Edit template' }).waitFor();
        await page.getByLabel('Email subject').fill('A better offer');
        await page.getByRole('button', { name: 'Save template' }).click();
        await page.getByRole('cell', { name: 'A better offer' }).first().waitFor();
        await checkScreen('templates');

        await go('Lists and audiences');
        await page.getByLabel('List name').fill(`Regulars ${tag}`);
        await page.getByRole('button', { name: 'Create list' }).click();
        await page.getByRole('button', { name: `Members of Regulars ${tag}` }).click();
        await page.getByLabel('Find a customer to add').fill(`buyer-${tag}`);
        await page.getByRole('button', { name: `Add buyer-${tag}@example.com to Regulars ${tag}` }).click();
        await page.getByRole('button', { name: `Remove buyer-${tag}@example.com from Regulars ${tag}` }).waitFor();
        await checkScreen('lists');

        await go('Marketing');
        await page.getByLabel('Template').selectOption({ label: `Offer ${tag}` });
        await page.getByLabel(`Regulars ${tag} (1)`).check();
        await page.getByRole('button', { name: 'Send to lists' }).click();
        await page.getByTestId('campaign-counts').waitFor();
        await page.getByRole('table', { name: 'Campaigns' }).getByText('A better offer').first().waitFor();
        await checkScreen('marketing');
      });

      await t.test('settings: shipping methods; jobs', async (t) => {
        await go('Store settings');
        await page.getByLabel('Method 1 price').fill('6.50');
        await page.getByRole('button', { name: 'Save shipping' }).click();
        await page.getByRole('status').filter({ hasText: 'Shipping saved' }).waitFor();
        const store = (await app.request({ url: '/admin/store', ...admin(owner) })).body.data.store;
        t.equal(store.shippingMethods[0].price, 650, 'saved through the API');
        await checkScreen('store-settings');
        await go('Jobs');
        // The platform's schedules (issue #37): each kind with its interval in words.
        await page.getByRole('table', { name: 'Scheduled jobs' }).getByRole('cell', { name: 'Every minute' }).first().waitFor();
        await checkScreen('jobs');
      });

      t.same(pageErrors, [], 'no Content-Security-Policy refusal or uncaught error in the page');
      await context.close();
    });
  }
});
