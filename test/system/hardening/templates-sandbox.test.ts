import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { closeCampaignTransports } from '../../../src/adapters/mail/index.js';
import { buildApp, signupOwner, unique, type Owner, type Teardownable, type TestApp } from '../../helpers/app.js';
import { seedCustomers, waitForCampaign } from '../../helpers/marketing.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

const SECRET = 'OTHER-STORE-EXPORT-ROW-7f3a';

/**
 * The production layout: STORAGE_DIR under the working directory (`.data/storage`), holding another
 * store's export. Before the sandbox, `{% include '<that path>' %}` in a store template read it.
 */
async function shopWithSecretFile(t: Teardownable) {
  const storageDir = path.join(process.cwd(), '.data', `templates-sandbox-${unique('s')}`);
  const secretFile = path.join(storageDir, 'exports', 'other-store.csv');
  await mkdir(path.dirname(secretFile), { recursive: true });
  await writeFile(secretFile, `email,name\n${SECRET}@example.com,Secret\n`);
  const smtp = await new SmtpCapture().start();
  t.teardown(async () => {
    closeCampaignTransports();
    await smtp.stop();
    await rm(storageDir, { recursive: true, force: true });
  });
  const app = await buildApp(t, { env: { SMTP_URL: smtp.url, STORAGE_DIR: storageDir } });
  return { app, smtp, secretFile, relativeSecret: path.relative(process.cwd(), secretFile) };
}

const as = (owner: Owner) => ({ token: owner.accessToken, storeId: owner.store.id });

async function saveTemplate(app: TestApp, owner: Owner, payload: Record<string, unknown>) {
  return app.request({ method: 'POST', url: '/admin/marketing/templates', ...as(owner), payload: { name: unique('tpl'), ...payload } });
}

t.test('a store template that names a file is refused on save with 422 template_invalid naming the tag', async (t) => {
  const { app, secretFile, relativeSecret } = await shopWithSecretFile(t);
  const owner = await signupOwner(app);

  const attempts: Array<{ field: 'subject' | 'html' | 'text'; tag: string; source: string }> = [
    { field: 'html', tag: 'include', source: `<p>Hi</p>\n{% include '${relativeSecret}' %}` },
    { field: 'html', tag: 'include', source: `{% include '/etc/passwd' %}` },
    { field: 'text', tag: 'render', source: `Hello\n\n{% render '${secretFile}' %}` },
    { field: 'html', tag: 'layout', source: `{% layout '${relativeSecret}' %}<p>x</p>` },
    { field: 'subject', tag: 'include', source: `{% liquid\n  include '${relativeSecret}' %}` }
  ];
  for (const { field, tag, source } of attempts) {
    const payload = { subject: 'Hello', text: 'plain', [field]: source };
    const saved = await saveTemplate(app, owner, payload);
    t.equal(saved.status, 422, `${field} with {% ${tag} %}: ${saved.raw}`);
    t.equal(saved.body.error.code, 'template_invalid');
    t.equal(saved.body.error.details[0].path, field);
    t.match(saved.body.error.details[0].message, new RegExp(`\\{% ${tag} %\\} is not allowed`));
    t.match(saved.body.error.message, new RegExp(`^${field}: \\{% ${tag} %\\}`));
    t.notMatch(saved.raw, SECRET);
  }
  const lined = await saveTemplate(app, owner, { subject: 'Hi', html: `<p>one</p>\n<p>two</p>\n{% include '${relativeSecret}' %}` });
  t.match(lined.body.error.details[0].message, /line 3/, 'the line is named');

  const good = await saveTemplate(app, owner, { key: 'welcome', subject: 'Hi {{ customer.firstName }}', html: '<p>{% for i in (1..3) %}{{ i }}{% endfor %}</p>' });
  t.equal(good.status, 201, good.raw);
  const replaced = await app.request({
    method: 'PUT',
    url: `/admin/marketing/templates/${good.body.data.template.id}`,
    ...as(owner),
    payload: { name: 'Welcome', subject: 'Hi', html: `{% render '${relativeSecret}' %}` }
  });
  t.equal(replaced.status, 422);
  t.equal(replaced.body.error.code, 'template_invalid');
  t.match(replaced.body.error.details[0], { path: 'html', message: /\{% render %\} is not allowed/ });
  t.equal((await app.ctx.db('marketingTemplates').where({ storeId: owner.store.id })).length, 1, 'only the good template was saved');
  t.equal((await app.ctx.db('marketingTemplates').where({ id: good.body.data.template.id }).first()).html, good.body.data.template.html, 'the refused replace changed nothing');

  // Campaign content: inline content of each campaign type goes through the same check.
  for (const [type, extra] of [
    ['generic', { audience: {} }],
    ['newsletter', {}]
  ] as const) {
    const campaign = await app.request({
      method: 'POST',
      url: `/admin/marketing/campaigns/${type}`,
      ...as(owner),
      payload: { subject: 'News', html: `<p>x</p>{% include '${relativeSecret}' %}`, text: 'x', ...extra }
    });
    t.equal(campaign.status, 422, `${type}: ${campaign.raw}`);
    t.equal(campaign.body.error.code, 'template_invalid');
    t.match(campaign.body.error.details[0], { path: 'html', message: /\{% include %\} is not allowed/ });
  }
  t.equal((await app.ctx.db('campaigns').where({ storeId: owner.store.id })).length, 0, 'no campaign was created');
});

t.test('a template with a file tag already in the database renders no file content', async (t) => {
  const { app, smtp, relativeSecret } = await shopWithSecretFile(t);
  const owner = await signupOwner(app);
  // Saved before this change (or written around the API): overrides the order confirmation.
  await app.ctx.db('marketingTemplates').insert({
    storeId: owner.store.id,
    key: 'order_confirmation',
    name: 'Leaky',
    subject: 'Order {{ order.number }}',
    html: `<p>Order</p>{% include '${relativeSecret}' %}`,
    text: 'Order {{ order.number }}'
  });
  await app.startWorkers(['email']);

  const sent = await app.request({ method: 'POST', url: '/admin/store/email/test-template', ...as(owner), payload: { toEmail: 'leak@example.com', templateKey: 'order_confirmation' } });
  t.equal(sent.status, 422, sent.raw);
  t.equal(sent.body.error.code, 'template_invalid');
  t.match(sent.body.error.message, /\{% include %\} is not allowed/);
  t.notMatch(sent.raw, SECRET);
  const log = await app.ctx.db('emailLog').where({ storeId: owner.store.id, toEmail: 'leak@example.com' }).first();
  t.equal(log.status, 'failed');
  t.match(log.error, /template "order_confirmation" cannot be rendered: .*\{% include %\} is not allowed/);

  const preview = await app.request({
    method: 'POST',
    url: `/admin/marketing/templates/${(await app.ctx.db('marketingTemplates').where({ storeId: owner.store.id }).first()).id}/preview`,
    ...as(owner)
  });
  t.equal(preview.status, 422);
  t.equal(preview.body.error.code, 'template_invalid');
  t.notMatch(preview.raw, SECRET);

  // A campaign whose content was changed in the database after its creation.
  await seedCustomers(app, owner.store.id, 2, { prefix: unique('leak') });
  const campaign = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', ...as(owner), payload: { subject: 'News', text: 'x' } });
  t.equal(campaign.status, 202, campaign.raw);
  await app.ctx.db('campaigns').where({ id: campaign.body.data.campaign.id }).update({ text: `{% include '${relativeSecret}' %}` });
  await app.startWorkers(['campaigns']);
  const failed = await waitForCampaign(app, owner, campaign.body.data.campaign.id, ['failed', 'sent']);
  t.equal(failed.status, 'failed');
  t.match(failed.error, /content cannot be rendered: .*\{% include %\} is not allowed/);
  t.equal(failed.failed, 2, 'every recipient failed with the reason');
  t.equal(failed.sent, 0);
  t.notOk(smtp.messages.some((m) => m.raw.includes(SECRET)), 'no message carries the file');
});

t.test('a template over a limit is refused on save: huge range, long render, huge output', async (t) => {
  const { app } = await shopWithSecretFile(t);
  const owner = await signupOwner(app);

  const cases: Array<{ source: string; reason: RegExp }> = [
    { source: '{% for i in (1..100000000) %}x{% endfor %}', reason: /too large/ },
    { source: '{% assign r = (1..700) %}{% for a in r %}{% for b in r %}{% for c in r %}{% endfor %}{% endfor %}{% endfor %}', reason: /more than 250 ms of CPU time/ },
    { source: '{% capture k %}{% for i in (1..1000) %}0123456789{% endfor %}{% endcapture %}{% for i in (1..60) %}{{ k }}{% endfor %}', reason: /larger than 512 KiB/ },
    { source: '{% assign s = "ab" %}{% for i in (1..40) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor %}{{ s | size }}', reason: /too large/ }
  ];
  for (const { source, reason } of cases) {
    const saved = await saveTemplate(app, owner, { subject: 'Hi', text: source });
    t.equal(saved.status, 422, `${source}: ${saved.raw}`);
    t.equal(saved.body.error.code, 'template_invalid');
    t.match(saved.body.error.details[0], { path: 'text', message: reason });
    t.match(saved.body.error.details[0].message, /rendered with sample data/);
  }
  const campaign = await app.request({
    method: 'POST',
    url: '/admin/marketing/campaigns/generic',
    ...as(owner),
    payload: { subject: 'x', html: '{% for i in (1..100000000) %}{{ i }}{% endfor %}', audience: {} }
  });
  t.equal(campaign.status, 422, campaign.raw);
  t.equal(campaign.body.error.code, 'template_invalid');
  t.match(campaign.body.error.details[0], { path: 'html', message: /too large/ });
  t.equal((await app.ctx.db('marketingTemplates').where({ storeId: owner.store.id })).length, 0);

  // Ordinary loops over data stay fine.
  const ok = await saveTemplate(app, owner, { subject: '{{ store.name }}', html: '<ul>{% for p in collection.products %}<li>{{ p.title }}</li>{% endfor %}</ul>{% for i in (1..50) %}.{% endfor %}' });
  t.equal(ok.status, 201, ok.raw);
});

t.test('a bad template in the database fails only its own send: the good one queued with it is delivered', async (t) => {
  const { app, smtp } = await shopWithSecretFile(t);
  const bad = await signupOwner(app);
  const good = await signupOwner(app);
  const slowLoop = '{% assign r = (1..700) %}{% for a in r %}{% for b in r %}{% for c in r %}{% endfor %}{% endfor %}{% endfor %}';
  await app.ctx.db('marketingTemplates').insert([
    { storeId: bad.store.id, key: 'order_confirmation', name: 'Slow', subject: 'Slow', html: `<p>${slowLoop}</p>`, text: 'x' },
    { storeId: bad.store.id, key: 'huge', name: 'Huge', subject: 'Huge', html: '', text: '{% for i in (1..100000000) %}x{% endfor %}' },
    { storeId: good.store.id, key: 'order_confirmation', name: 'Fine', subject: 'Your order {{ order.number }}', html: '<p>Thanks {{ customer.firstName }}</p>', text: 'Thanks' }
  ]);
  await app.startWorkers(['email']);

  // Test sends through the email queue, all at once: the good store's mail is delivered.
  const [slow, huge, fine] = await Promise.all([
    app.request({ method: 'POST', url: '/admin/store/email/test-template', ...as(bad), payload: { toEmail: 'slow@example.com', templateKey: 'order_confirmation' } }),
    app.request({ method: 'POST', url: '/admin/store/email/test-template', ...as(bad), payload: { toEmail: 'huge@example.com', templateKey: 'huge' } }),
    app.request({ method: 'POST', url: '/admin/store/email/test-template', ...as(good), payload: { toEmail: 'fine@example.com', templateKey: 'order_confirmation' } })
  ]);
  t.equal(fine.status, 200, fine.raw);
  const delivered = await smtp.waitFor((m) => m.envelopeTo.includes('fine@example.com'));
  t.equal(delivered.parsed.subject, 'Your order #1001');
  t.equal(slow.status, 422, slow.raw);
  t.equal(slow.body.error.code, 'template_invalid');
  t.match(slow.body.error.message, /html: template over a limit: rendering took more than 250 ms of CPU time/);
  t.equal(huge.status, 422, huge.raw);
  t.match(huge.body.error.message, /text: template over a limit: .*too large/);

  const logs = await app.ctx.db('emailLog').whereIn('toEmail', ['slow@example.com', 'huge@example.com', 'fine@example.com']);
  const logOf = (to: string) => logs.find((l: { toEmail: string }) => l.toEmail === to);
  t.match(logOf('slow@example.com'), { status: 'failed', error: /^template "order_confirmation" cannot be rendered: html: template over a limit: rendering took more than 250 ms of CPU time/ });
  t.match(logOf('huge@example.com'), { status: 'failed', error: /^template "huge" cannot be rendered: text: template over a limit/ });
  t.match(logOf('fine@example.com'), { status: 'sent' });
  t.notOk(smtp.messages.some((m) => m.envelopeTo.includes('slow@example.com') || m.envelopeTo.includes('huge@example.com')));

  // The worker is still serving: the next email of the bad store (a built-in template) goes out.
  const after = await app.request({ method: 'POST', url: '/admin/store/email/test-template', ...as(bad), payload: { toEmail: 'after@example.com', templateKey: 'password_reset' } });
  t.equal(after.status, 200, after.raw);
});

t.test('a campaign over a limit fails with the reason; a campaign of another store queued with it is delivered', async (t) => {
  const { app, smtp } = await shopWithSecretFile(t);
  const bad = await signupOwner(app);
  const good = await signupOwner(app);
  await seedCustomers(app, bad.store.id, 30, { prefix: unique('bad') });
  const goodEmails = (await seedCustomers(app, good.store.id, 3, { prefix: unique('good') })).length;

  const create = async (owner: Owner, payload: Record<string, unknown>) => {
    const response = await app.request({ method: 'POST', url: '/admin/marketing/campaigns/newsletter', ...as(owner), payload });
    if (response.status !== 202) throw new Error(response.raw);
    return response.body.data.campaign.id as string;
  };
  const badRange = await create(bad, { subject: 'Range', text: 'placeholder' });
  const badTime = await create(bad, { subject: 'Time', html: '<p>placeholder</p>' });
  const fine = await create(good, { subject: 'Hello {{ customer.firstName }}', text: 'News from {{ store.name }}' });
  // Content saved before the limits existed: written straight into the rows, before any worker runs.
  await app.ctx.db('campaigns').where({ id: badRange }).update({ text: '{% for i in (1..100000000) %}x{% endfor %}' });
  await app.ctx.db('campaigns').where({ id: badTime }).update({ html: '<p>{% assign r = (1..700) %}{% for a in r %}{% for b in r %}{% for c in r %}{% endfor %}{% endfor %}{% endfor %}</p>' });
  await app.startWorkers(['campaigns']);

  const sent = await waitForCampaign(app, good, fine, ['sent', 'failed']);
  t.match(sent, { status: 'sent', sent: goodEmails, failed: 0 });
  t.equal(smtp.messages.filter((m) => /^Hello First/.test(m.parsed.subject ?? '')).length, goodEmails, 'the good store is delivered');

  const range = await waitForCampaign(app, bad, badRange, ['failed', 'sent']);
  t.match(range, { status: 'failed', sent: 0, failed: 30, error: /content cannot be rendered: text: template over a limit: .*too large/ });
  const time = await waitForCampaign(app, bad, badTime, ['failed', 'sent']);
  t.match(time, { status: 'failed', sent: 0, failed: 30, error: /content cannot be rendered: html: template over a limit: rendering took more than 250 ms of CPU time/ });
  const reasons = await app.ctx.db('campaignRecipients').where({ campaignId: badTime }).distinct('error').pluck('error');
  t.same(reasons, [time.error], 'each recipient carries the reason');
  t.notOk(smtp.messages.some((m) => /^(Range|Time)/.test(m.parsed.subject ?? '')), 'nothing of the bad campaigns was sent');
});

/**
 * "On every Liquid engine in the code base": the sandbox is the only place that imports liquidjs or
 * makes an engine, so no other engine (with liquidjs's default file system loader) can appear.
 */
t.test('every Liquid engine comes from the sandbox: liquidjs is imported only by src/platform/liquid/', async (t) => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const sourceFiles = (dir: string): string[] =>
    readdirSync(path.join(process.cwd(), dir), { withFileTypes: true }).flatMap((entry) => {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(rel);
      return /\.(ts|tsx|js|mjs|cjs)$/.test(entry.name) ? [rel] : [];
    });
  const files = ['src', 'test', 'bench', 'migrations', 'scripts', 'console'].flatMap(sourceFiles);
  t.ok(files.includes('src/platform/liquid/sandboxed-engine.ts'), `the sources are read (${files.length} files)`);
  const importsLiquid = /\bfrom\s+['"]liquidjs['"]|\b(?:require|import)\(\s*['"]liquidjs['"]\s*\)/;
  const makesEngine = /\bnew\s+Liquid\s*\(/;
  const offenders = files.flatMap((file) => {
    const text = readFileSync(path.join(process.cwd(), file), 'utf8');
    return [
      ...(importsLiquid.test(text) && !file.startsWith('src/platform/liquid/') ? [`${file}: imports liquidjs`] : []),
      ...(makesEngine.test(text) && file !== 'src/platform/liquid/sandboxed-engine.ts' ? [`${file}: makes a Liquid engine`] : [])
    ];
  });
  t.same(offenders, [], 'createSandboxedLiquid() is the only way to a Liquid engine');
});
