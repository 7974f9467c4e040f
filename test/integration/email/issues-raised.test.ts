import { rm } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin, createProduct } from '../../helpers/catalog.js';
import { importCsv, waitForJob } from '../../helpers/jobs.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';
import { enqueueEmail } from '../../../src/services/email/outbox.js';
import { scanLowStock } from '../../../src/services/issues/low-stock.js';

const openIssues = async (app: Awaited<ReturnType<typeof buildApp>>, owner: Awaited<ReturnType<typeof signupOwner>>) =>
  (await app.request({ url: '/admin/store/issues', ...admin(owner) })).body.data.issues as any[];

t.test('the hourly low-stock scan raises one issue per low variant and resolves restocked ones', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const product = await createProduct(app, owner, {
    title: 'Lamp',
    status: 'active',
    variants: [
      { sku: 'LAMP-LOW', title: 'Low', price: 1000, inventoryQuantity: 2 },
      { sku: 'LAMP-OK', title: 'Plenty', price: 1000, inventoryQuantity: 50 },
      { sku: 'LAMP-ANY', title: 'Backorder', price: 1000, inventoryQuantity: 0, inventoryPolicy: 'continue' }
    ]
  });
  await createProduct(app, other, { title: 'Mug', variants: [{ sku: 'MUG', title: 'Mug', price: 500, inventoryQuantity: 1 }] });

  t.same(await scanLowStock(app.ctx), { raised: 2, resolved: 0 }, 'one issue in each store');
  const issues = await openIssues(app, owner);
  t.equal(issues.length, 1);
  t.match(issues[0], { kind: 'low_stock', severity: 'warning', title: /Lamp \(LAMP-LOW\)/, detail: /^2 in stock/ });
  t.same(await scanLowStock(app.ctx), { raised: 0, resolved: 0 }, 'an unchanged shortage is not raised again');

  const low = product.variants.find((v: any) => v.sku === 'LAMP-LOW');
  const restock = await app.request({ method: 'POST', url: `/admin/products/${product.id}/variants/${low.id}/inventory`, payload: { quantity: 40 }, ...admin(owner) });
  t.equal(restock.status, 200, restock.raw);
  t.same(await scanLowStock(app.ctx), { raised: 0, resolved: 1 });
  t.same(await openIssues(app, owner), []);
});

t.test('a customer import that fails for good raises an import issue', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  const started = await importCsv(app, owner, 'email,first_name\na@example.com,Ann\n');
  t.equal(started.status, 202);
  const run = await app.ctx.db('jobs').where({ id: started.body.data.job.id }).first();
  await rm(path.join(app.ctx.config.storageDir, run.input.fileKey), { force: true });
  await app.startWorkers(['imports']);
  const job = await waitForJob(app, owner, run.id);
  t.equal(job.status, 'failed');
  const issues = await openIssues(app, owner);
  t.match(issues, [{ kind: 'import_failed', severity: 'critical', detail: new RegExp(run.id) }]);
});

t.test('an email refused on its last attempt raises an email issue', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  smtp.rejectRecipients.add('gone@example.com');
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app);
  await enqueueEmail(app.ctx, { storeId: owner.store.id, to: 'gone@example.com', templateKey: 'team_invite', data: {} }, { attempts: 1 });
  const deadline = Date.now() + 15_000;
  let issues: any[] = [];
  while (Date.now() < deadline && !issues.length) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    issues = await openIssues(app, owner);
  }
  t.match(issues, [{ kind: 'email_failed', title: /team_invite/, detail: /gone@example\.com/ }]);
});
