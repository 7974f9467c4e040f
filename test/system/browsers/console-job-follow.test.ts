import t from 'tap';
import { admin, createProduct } from '../../helpers/catalog.js';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { chromiumSkip, launchBrowser, signIn, watchPageErrors } from '../../helpers/browser.js';
import { waitForJob } from '../../helpers/jobs.js';

/**
 * A screen that follows one job after another (console/src/api/live.ts: `useLive`) follows the new
 * one from its own first state, not from the last state of the one before. It kept the previous
 * job's value until the new job's event stream answered: when the new job had already completed
 * by then (a small bulk change on a quick machine), its status went from "completed" to
 * "completed", the bulk screen saw no change, and the product list was never read again: a deleted
 * product stayed on the list (console-operations' bulk delete failed so in one full run). Here every
 * job's event stream is held until the job has completed, so each new job's first event is its last.
 */
t.setTimeout(300_000);

const skip = chromiumSkip();

t.test('the bulk screen follows its second job from that job\'s first state: a bulk delete after a bulk tag refreshes the list', { skip }, async (t) => {
  const app = await buildApp(t, { workers: true, listen: true });
  const base = app.server.info.uri;
  const owner = await signupOwner(app);
  for (const title of ['Follow Lamp', 'Follow Vase']) await createProduct(app, owner, { title, status: 'active', variants: [{ price: 1000 }] });
  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const pageErrors = watchPageErrors(page);

  // Each job's event stream opens only once the job is done: its first event is "completed".
  const held: string[] = [];
  await page.route('**/api/v1/admin/jobs/*/events', async (route) => {
    const jobId = new URL(route.request().url()).pathname.split('/').at(-2)!;
    held.push(jobId);
    const job = await waitForJob(app, owner, jobId);
    t.equal(job.status, 'completed', 'the job completed before its stream opened');
    await route.continue();
  });

  await signIn(page, base, owner);
  await page.goto(`${base}/app/products`);
  await page.getByRole('heading', { level: 1, name: 'Products' }).waitFor();
  await page.getByLabel('Search products').fill('Follow');
  await page.getByRole('link', { name: 'Follow Vase' }).waitFor();

  await page.getByLabel('Select Follow Lamp').check();
  await page.getByLabel('Bulk action', { exact: true }).selectOption('addTags');
  await page.getByLabel('Tags (comma separated)').fill('followed');
  await page.getByRole('button', { name: 'Apply to selected' }).click();
  await page.getByTestId('bulk-result').filter({ hasText: '1 changed' }).waitFor({ timeout: 30_000 });

  await page.getByLabel('Select Follow Vase').check();
  await page.getByLabel('Bulk action', { exact: true }).selectOption('delete');
  await page.getByRole('button', { name: 'Apply to selected' }).click();
  await page.getByRole('button', { name: 'Yes, delete them' }).click();
  // Before the fix the list was never read again: the vase stayed until the page was reloaded.
  await page.getByRole('link', { name: 'Follow Vase' }).waitFor({ state: 'detached', timeout: 15_000 });
  t.equal(held.length, 2, 'both jobs were followed through their streams');
  const left = (await app.request({ url: '/admin/products?q=Follow', ...admin(owner) })).body.data.products as Array<{ title: string }>;
  t.same(left.map((product) => product.title), ['Follow Lamp'], 'the vase is deleted, the lamp stays');
  await page.getByRole('link', { name: 'Follow Lamp' }).waitFor();
  t.same(pageErrors, [], 'no Content-Security-Policy refusal or uncaught error in the page');
  await context.close();
});
