import { readFile } from 'node:fs/promises';
import t from 'tap';
import type { Page } from 'playwright-core';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';
import { buildApp, signupOwner, type Owner } from '../../helpers/app.js';
import { axeViolations, chromiumSkip, launchBrowser, screenshot, signIn, watchPageErrors } from '../../helpers/browser.js';
import { shopifyCsv } from '../../helpers/products-csv.js';

/**
 * Issue #37, "the console does the whole job": the operator tasks that had no screen, walked in
 * chromium at 1360 px and 390 px against the real service and its workers: shipping zones and their
 * rates, taxes (regions, prices with tax, the tax report job), the audit log (filters, pages, an
 * entry, the export job, the chain check), the product CSV import (progress, row errors) and export
 * (download), bulk actions on selected products, deleting a collection and a discount (a used one is
 * refused with what to do instead). axe-core finds nothing on each screen; every result is checked
 * through the API.
 */
t.setTimeout(600_000);

const skip = chromiumSkip();

t.test('the operations screens at 1360 px and 390 px', { skip }, async (t) => {
  const app = await buildApp(t, { workers: true, listen: true });
  const base = app.server.info.uri;
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const mug = await sellable(app, owner, 'Mug', [{ price: 1500, stock: 50 }]);
  const api = (method: string, url: string, payload?: unknown) => app.request({ method, url, ...(payload === undefined ? {} : { payload }), ...admin(owner) });
  // More entries than one page of the audit log holds (25), so its pages can be walked.
  for (let i = 0; i < 26; i++) t.equal((await api('PATCH', '/admin/store', { name: `Lumen ${i}` })).status, 200);
  // An API key that acted: the log names it and filters by it.
  const key = await api('POST', '/admin/store/api-keys', { name: 'Till', scopes: ['write_products'] });
  t.equal(key.status, 201, key.raw);
  const byKey = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Made by the till' }, headers: { authorization: `Bearer ${key.body.data.secret}` } });
  t.equal(byKey.status, 201, byKey.raw);
  const browser = await launchBrowser();
  t.teardown(() => browser.close());

  for (const width of [1360, 390]) {
    const phone = width < 600;
    const tag = `${width}`;
    await t.test(`every operations screen at ${width} px`, async (t) => {
      const context = await browser.newContext({ viewport: { width, height: phone ? 844 : 900 }, reducedMotion: 'reduce', acceptDownloads: true });
      const page = await context.newPage();
      const pageErrors = watchPageErrors(page);
      // A renderer that dies leaves every later locator waiting: say so instead.
      page.on('crash', () => pageErrors.push('the page crashed'));
      const checkScreen = async (name: string) => {
        await screenshot(page, `ops-${tag}-${name}`);
        t.same(await axeViolations(page), [], `${name} at ${width} px: axe finds nothing`);
      };
      const menu = page.getByRole('navigation', { name: 'Main' });
      const go = async (label: string, heading: string | RegExp = label) => {
        if (phone) {
          await page.getByRole('button', { name: 'Open menu' }).click();
          await menu.getByRole('link', { name: label, exact: true }).waitFor();
        }
        await menu.getByRole('link', { name: label, exact: true }).click();
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        if (phone) await menu.getByRole('link', { name: label, exact: true }).waitFor({ state: 'hidden' });
      };
      /** Scrolled to first: at 390 px a click right after a layout change can land on what was there before. */
      const click = async (locator: ReturnType<Page['getByRole']>) => {
        await locator.scrollIntoViewIfNeeded();
        await locator.click();
      };
      const download = async (button: ReturnType<Page['getByRole']>) => {
        const [file] = await Promise.all([page.waitForEvent('download'), click(button)]);
        return readFile((await file.path())!, 'utf8');
      };

      await signIn(page, base, owner);
      await page.goto(`${base}/app/`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();

      await t.test('shipping: a zone with a flat and a weight rate; a bad country named; edited; deleted', async (t) => {
        const zone = `Europe ${tag}`;
        await go('Shipping');
        await page.getByLabel('Zone name').fill(zone);
        await page.getByLabel('Countries').fill('France, DE');
        await page.getByLabel('Rate 1 name').fill('Standard');
        await page.getByLabel('Rate 1 price').fill('7.50');
        await click(page.getByRole('button', { name: 'Add rate' }));
        await page.getByLabel('Rate 2 name').fill('Heavy');
        await page.getByLabel('Rate 2 kind').selectOption('weight');
        await page.getByLabel('Rate 2 band 1 up to (grams)').fill('1000');
        await page.getByLabel('Rate 2 band 1 price').fill('5');
        await click(page.getByRole('button', { name: 'Add band to rate 2' }));
        await page.getByLabel('Rate 2 band 2 price').fill('9');
        await click(page.getByRole('button', { name: 'Create zone' }));
        const invalid = page.getByRole('alert').filter({ hasText: /Countr/ });
        await invalid.waitFor();
        t.match(await invalid.textContent(), /Country 1/, 'the bad country is named as a person would');
        t.notMatch(await page.locator('main').textContent(), /countries\[0\]|countries\.0/, 'no API path on the screen');
        await page.getByLabel('Countries').fill('FR, DE');
        await click(page.getByRole('button', { name: 'Create zone' }));
        await page.getByRole('cell', { name: zone, exact: true }).waitFor();
        const created = (await api('GET', '/admin/shipping-zones')).body.data.zones.find((z: { name: string }) => z.name === zone);
        t.match(created, { countries: ['FR', 'DE'], rates: [{ name: 'Standard', type: 'flat', price: 750 }, { name: 'Heavy', type: 'weight', bands: [{ upTo: 1000, price: 500 }, { upTo: null, price: 900 }] }] }, 'saved through the API');
        await checkScreen('shipping');
        await click(page.getByRole('button', { name: `Edit ${zone}` }));
        await page.getByRole('heading', { name: `Edit ${zone}` }).waitFor();
        await page.getByLabel('Rate 1 price').fill('8.00');
        await click(page.getByRole('button', { name: 'Save zone' }));
        await page.getByRole('heading', { name: 'New shipping zone' }).waitFor();
        const edited = (await api('GET', `/admin/shipping-zones/${created.id}`)).body.data.zone;
        t.equal(edited.rates[0].price, 800, 'the edit saved');
        t.equal(edited.rates[0].id, created.rates[0].id, 'the rate kept its id (a cart that chose it keeps it)');
        await click(page.getByRole('button', { name: `Delete ${zone}` }));
        await click(page.getByRole('button', { name: 'Yes, delete the zone' }));
        await page.getByRole('cell', { name: zone, exact: true }).waitFor({ state: 'detached' });
        t.equal((await api('GET', `/admin/shipping-zones/${created.id}`)).status, 404, 'deleted');
      });

      await t.test('taxes: settings, a region with a class rate, edited and deleted; the tax report job', async (t) => {
        const region = phone ? 'NY' : 'CA';
        await go('Taxes');
        await page.getByTestId('empty-state').waitFor();
        t.match(await page.getByTestId('empty-state').textContent(), /No tax regions/, 'the empty state says what it means');
        const before = (await api('GET', '/admin/store')).body.data.store.pricesIncludeTax as boolean;
        const includes = page.getByLabel(/^Prices include tax/);
        await includes.setChecked(!before);
        await click(page.getByRole('button', { name: 'Save tax settings' }));
        await page.getByRole('status').filter({ hasText: 'Tax settings saved' }).waitFor();
        t.equal((await api('GET', '/admin/store')).body.data.store.pricesIncludeTax, !before, 'prices-include-tax saved');

        await page.getByLabel(/^Country/).fill('US');
        await page.getByLabel('Region (optional)').fill(region);
        await page.getByLabel('Tax name').fill(`Sales tax ${tag}`);
        await page.getByLabel('Rate (%)').fill('lots');
        await click(page.getByRole('button', { name: 'Create tax region' }));
        const invalid = page.locator('[id$="-error"]').first();
        await invalid.waitFor();
        t.match(await invalid.textContent(), /^Rate/, 'the rate is named next to its field');
        await page.getByLabel('Rate (%)').fill('7.25');
        await page.getByLabel('Tax class rates (optional)').fill('reduced 2.5');
        await page.getByLabel('Charge this rate on shipping').check();
        await click(page.getByRole('button', { name: 'Create tax region' }));
        await page.getByRole('cell', { name: `Sales tax ${tag}`, exact: true }).waitFor();
        const [saved] = (await api('GET', '/admin/tax-regions?country=US')).body.data.taxRegions;
        t.match(saved, { country: 'US', rate: 725, classRates: { reduced: 250 }, taxShipping: true }, 'saved through the API');
        await checkScreen('taxes');
        await click(page.getByRole('button', { name: `Edit Sales tax ${tag}` }));
        await page.getByLabel('Rate (%)').fill('7.5');
        await click(page.getByRole('button', { name: 'Save tax region' }));
        await page.getByRole('cell', { name: '7.5%', exact: true }).waitFor();
        t.equal((await api('GET', `/admin/tax-regions/${saved.id}`)).body.data.taxRegion.rate, 750, 'the edit saved');
        await click(page.getByRole('button', { name: `Delete Sales tax ${tag}` }));
        await click(page.getByRole('button', { name: 'Yes, delete the region' }));
        await page.getByTestId('empty-state').waitFor();
        t.equal((await api('GET', `/admin/tax-regions/${saved.id}`)).status, 404, 'deleted');

        await page.getByLabel('From month (optional)').fill('2026-01');
        await click(page.getByRole('button', { name: 'Build tax report' }));
        await click(page.getByRole('link', { name: /follow it and download it/ }));
        await page.getByRole('heading', { level: 1, name: 'Taxes report' }).waitFor();
        await page.getByTestId('job-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
        const csv = await download(page.getByRole('button', { name: 'Download file' }));
        t.ok(csv.length > 0, 'the report downloads');
        const jobs = (await api('GET', '/admin/jobs?type=taxes.report')).body.data.jobs as Array<{ status: string }>;
        t.ok(jobs.some((job) => job.status === 'completed'), 'the job completed, as the API says');
        await checkScreen('tax-report-job');
      });

      await t.test('collections and discounts deleted, each confirmed; a used code refused', async (t) => {
        const collection = (await api('POST', '/admin/collections', { title: `Old ${tag}`, productIds: [mug.id] })).body.data.collection;
        await go('Collections');
        await click(page.getByRole('link', { name: `Old ${tag}` }));
        await page.getByRole('heading', { level: 1, name: `Old ${tag}` }).waitFor();
        await click(page.getByRole('button', { name: 'Delete collection' }));
        await click(page.getByRole('button', { name: 'Yes, delete the collection' }));
        await page.getByRole('heading', { level: 1, name: 'Collections' }).waitFor();
        t.equal((await api('GET', `/admin/collections/${collection.id}`)).status, 404, 'the collection is deleted');
        t.equal((await api('GET', `/admin/products/${mug.id}`)).status, 200, 'its product stays');

        const unused = (await api('POST', '/admin/discounts', { code: `UNUSED${tag}`, type: 'percentage', value: 5 })).body.data.discount;
        const used = (await api('POST', '/admin/discounts', { code: `USED${tag}`, type: 'percentage', value: 5 })).body.data.discount;
        const { session } = await openSession(app, owner, [{ variantId: mug.variants[0]!.id, quantity: 1 }], { code: `USED${tag}`, email: `used-${tag}@example.com` });
        t.equal((await confirm(app, owner, session.body.data.checkoutSession.id)).status, 200, 'an order used the code');
        await go('Discounts');
        await click(page.getByRole('button', { name: `Delete UNUSED${tag}` }));
        await click(page.getByRole('button', { name: `Yes, delete UNUSED${tag}` }));
        await page.getByRole('cell', { name: `UNUSED${tag}`, exact: true }).waitFor({ state: 'detached' });
        t.equal((await api('GET', `/admin/discounts/${unused.id}`)).status, 404, 'the unused code is deleted');
        await click(page.getByRole('button', { name: `Delete USED${tag}` }));
        await click(page.getByRole('button', { name: `Yes, delete USED${tag}` }));
        const refused = page.getByRole('alert').filter({ hasText: /deactivate/i });
        await refused.waitFor();
        t.match(await refused.textContent(), /used on an order/, 'the operator is told why and what to do instead');
        t.equal((await api('GET', `/admin/discounts/${used.id}`)).status, 200, 'the used code stays');
        await checkScreen('discount-refused');
      });

      await t.test('audit log: filtered, paged, an entry opened, exported, checked', async (t) => {
        await go('Audit log');
        await page.getByTestId('audit-row').first().waitFor();
        t.equal(await page.getByTestId('audit-row').count(), 25, 'a page of 25 entries');
        const first = await page.getByTestId('audit-row').first().textContent();
        await click(page.getByRole('button', { name: 'Next page' }));
        await page.getByRole('button', { name: 'Previous page' }).and(page.locator(':not([disabled])')).waitFor();
        await page.waitForFunction((text) => (globalThis as any).document.querySelector('[data-testid="audit-row"]')?.textContent !== text, first);
        t.pass('the next page shows older entries');
        await click(page.getByRole('button', { name: 'Previous page' }));
        await page.getByTestId('audit-row').first().filter({ hasText: first! }).waitFor();
        await checkScreen('audit-log');

        await page.getByLabel(/^Action/).fill('discount.deleted');
        await page.getByTestId('audit-row').first().filter({ hasText: `discount.deleted` }).waitFor();
        await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('[data-testid="audit-row"]')].every((row: any) => row.textContent.includes('discount.deleted')));
        await page.getByLabel('Who').selectOption({ label: owner.user.email });
        const row = page.getByTestId('audit-row').first();
        t.match(await row.textContent(), new RegExp(owner.user.email.replace(/[.]/g, '\\.')), 'by the member who did it');
        await page.getByLabel('Who').selectOption({ label: 'API key Till' });
        await page.getByLabel(/^Action/).fill('');
        await page.getByTestId('audit-row').first().filter({ hasText: 'API key Till' }).waitFor();
        await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid="audit-row"]').length === 1);
        t.match(await page.getByTestId('audit-row').first().textContent(), /collections/, 'an API key is named, and filters the log to its one change');
        await page.getByLabel(/^Action/).fill('discount.deleted');
        await page.getByLabel('Who').selectOption({ label: owner.user.email });
        await page.getByTestId('audit-row').first().filter({ hasText: 'discount.deleted' }).waitFor();
        await click(row.getByRole('button', { name: /^Details of entry/ }));
        await page.getByTestId('audit-entry').waitFor();
        t.match(await page.getByTestId('audit-changes').textContent(), new RegExp(`UNUSED${tag}`), 'the entry shows what was deleted');
        await checkScreen('audit-entry');
        await click(page.getByRole('button', { name: 'Close entry' }));

        await click(page.getByRole('button', { name: 'Export these entries to CSV' }));
        await click(page.getByRole('link', { name: 'download it from its job page' }));
        await page.getByRole('heading', { level: 1, name: 'Audit export' }).waitFor();
        await page.getByTestId('job-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
        const csv = await download(page.getByRole('button', { name: 'Download file' }));
        t.match(csv, /discount\.deleted/, 'the export holds the filtered entries');
        t.notMatch(csv, /store\.settings_updated/, 'and only them');

        await go('Audit log');
        const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
        await page.getByLabel('From day').fill(tomorrow);
        await page.getByTestId('empty-state').filter({ hasText: 'No entry matches these filters.' }).waitFor();
        t.pass('a day with nothing says so');
        await click(page.getByRole('button', { name: 'Clear filters' }));
        await click(page.getByRole('button', { name: 'Check the log is intact' }));
        await page.getByTestId('audit-verify').filter({ hasText: /^Intact: \d+ entries checked/ }).waitFor();
        t.equal((await api('GET', '/admin/store/audit-log/verify')).body.data.valid, true, 'as the API says');
      });

      await t.test('products: CSV import with row errors, export downloaded, bulk tag, publish and delete', async (t) => {
        const lamp = `Lamp ${tag}`;
        const vase = `Vase ${tag}`;
        const csv = shopifyCsv([
          { Handle: `lamp-${tag}`, Title: lamp, 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant Price': '30.00', 'Variant Inventory Qty': '4', Status: 'draft' },
          { Handle: `vase-${tag}`, Title: vase, 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant Price': '12.00', Status: 'draft' },
          { Handle: `broken-${tag}`, Title: `Broken ${tag}`, 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant Price': 'twelve', Status: 'draft' }
        ]);
        await go('Products');
        await click(page.getByRole('link', { name: 'Import or export' }));
        await page.getByRole('heading', { level: 1, name: 'Import and export products' }).waitFor();
        await page.locator('input[type="file"]').setInputFiles({ name: 'products.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
        await click(page.getByRole('button', { name: 'Import', exact: true }));
        await page.getByTestId('job-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
        const problem = page.getByTestId('import-error').first();
        await problem.waitFor();
        t.match(await problem.textContent(), /price/i, 'the bad row is listed with its column and problem');
        const listed = (await api('GET', `/admin/products?q=${tag}&limit=50`)).body.data.products as Array<{ id: string; title: string; status: string; tags: string[] }>;
        t.same(listed.map((p) => p.title).sort(), [lamp, vase], 'the good rows were imported, the bad one not');
        await checkScreen('product-import');

        await page.getByLabel('Export status').selectOption('draft');
        await click(page.getByRole('button', { name: 'Export to CSV' }));
        const exported = await download(page.getByRole('button', { name: 'Download product CSV' }));
        t.match(exported, new RegExp(`lamp-${tag}`), 'the export holds the imported products');

        await click(page.getByRole('link', { name: 'Back to products' }));
        await page.getByRole('heading', { level: 1, name: 'Products' }).waitFor();
        await page.getByLabel('Search products').fill(tag);
        await page.getByRole('link', { name: vase }).waitFor();
        await page.getByRole('link', { name: 'Mug', exact: true }).waitFor({ state: 'detached' });
        await page.getByLabel('Select every product on this page').check();
        t.match(await page.getByTestId('selected-count').textContent(), /^2 selected/, 'both rows selected');
        await page.getByLabel('Bulk action', { exact: true }).selectOption('publish');
        await click(page.getByRole('button', { name: 'Apply to selected' }));
        await page.getByTestId('bulk-result').filter({ hasText: '2 changed' }).waitFor({ timeout: 60_000 });
        const published = (await api('GET', `/admin/products?q=${tag}&limit=50`)).body.data.products as Array<{ status: string }>;
        t.same(published.map((p) => p.status), ['active', 'active'], 'both published');

        await page.getByLabel(`Select ${lamp}`).check();
        await page.getByLabel('Bulk action', { exact: true }).selectOption('addTags');
        await page.getByLabel('Tags (comma separated)').fill(`sale-${tag}`);
        await click(page.getByRole('button', { name: 'Apply to selected' }));
        await page.getByTestId('bulk-result').filter({ hasText: '1 changed' }).waitFor({ timeout: 60_000 });
        const tagged = (await api('GET', `/admin/products?q=${encodeURIComponent(lamp)}`)).body.data.products[0];
        t.ok(tagged.tags.includes(`sale-${tag}`), 'the lamp is tagged');

        await page.getByLabel(`Select ${vase}`).check();
        await page.getByLabel('Bulk action', { exact: true }).selectOption('delete');
        await click(page.getByRole('button', { name: 'Apply to selected' }));
        await checkScreen('products-bulk-delete-confirm');
        await click(page.getByRole('button', { name: 'Yes, delete them' }));
        await page.getByRole('link', { name: vase }).waitFor({ state: 'detached', timeout: 60_000 });
        const left = (await api('GET', `/admin/products?q=${tag}&limit=50`)).body.data.products as Array<{ title: string }>;
        t.same(left.map((p) => p.title), [lamp], 'the vase is deleted, the lamp stays');
        await checkScreen('products-bulk');
      });

      t.same(pageErrors, [], 'no Content-Security-Policy refusal or uncaught error in the page');
      await context.close();
    });
  }
});
