import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

// One app with the email worker for the tests that send through a store's own SMTP server (issue #32:
// each app costs a cloned database and a server); each signs up its own store with its own server.
// The local-outbox test counts every file of the app's outbox folder and builds its own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t, { workers: ['email'] });
});

t.test('store SMTP settings: password write-only and encrypted; verify does a real handshake', async (t) => {
  const smtp = await new SmtpCapture({ user: 'mailer', password: 's3cret-smtp-pass' }).start();
  t.teardown(() => smtp.stop());
  const owner = await signupOwner(app);
  const admin = { token: owner.accessToken, storeId: owner.store.id };

  const local = await app.request({ url: '/admin/store/email/verify', ...admin });
  t.equal(local.status, 200);
  t.match(local.body.data, { ok: true, provider: 'local' });

  const patch = await app.request({
    method: 'PATCH',
    url: '/admin/store',
    payload: { email: { fromName: 'Ada Goods', fromEmail: 'shop@ada.example', replyTo: 'help@ada.example', smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'mailer', password: 's3cret-smtp-pass' } } },
    ...admin
  });
  t.equal(patch.status, 200);
  t.same(patch.body.data.store.email.smtp, { host: '127.0.0.1', port: smtp.port, secure: false, user: 'mailer', passwordSet: true });
  t.notOk(patch.raw.includes('s3cret-smtp-pass'), 'the password is never read back');
  const row = await app.ctx.db('storeEmailSettings').where({ storeId: owner.store.id }).first();
  t.notOk(JSON.stringify(row).includes('s3cret-smtp-pass'), 'the password is encrypted at rest');
  t.match(row.smtpPasswordEncrypted, /^v1:/);

  const verified = await app.request({ url: '/admin/store/email/verify', ...admin });
  t.equal(verified.status, 200);
  t.match(verified.body.data, { ok: true, provider: 'smtp' });

  // Changing other fields keeps the stored password.
  await app.request({ method: 'PATCH', url: '/admin/store', payload: { email: { fromName: 'Ada', smtp: { host: '127.0.0.1', port: smtp.port, user: 'mailer' } } }, ...admin });
  t.match((await app.request({ url: '/admin/store/email/verify', ...admin })).body.data, { ok: true });

  await app.request({ method: 'PATCH', url: '/admin/store', payload: { email: { smtp: { host: '127.0.0.1', port: smtp.port, user: 'mailer', password: 'wrong' } } }, ...admin });
  const refused = await app.request({ url: '/admin/store/email/verify', ...admin });
  t.equal(refused.status, 200);
  t.equal(refused.body.data.ok, false);
  t.match(refused.body.data.message, /535|auth/i);
});

t.test('test email and test-template email arrive; SMTP failure is a 502 with the server message', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const owner = await signupOwner(app, { storeName: 'Lumen Lamps' });
  const admin = { token: owner.accessToken, storeId: owner.store.id };
  await app.request({ method: 'PATCH', url: '/admin/store', payload: { email: { fromName: 'Lumen', fromEmail: 'hello@lumen.example', smtp: { host: '127.0.0.1', port: smtp.port } } }, ...admin });

  const test = await app.request({ method: 'POST', url: '/admin/store/email/test', payload: { toEmail: 'Buyer@Example.com' }, ...admin });
  t.equal(test.status, 200);
  t.ok(test.body.data.messageId);
  t.same(test.body.data.accepted, ['buyer@example.com']);
  const plain = await smtp.waitFor((m) => m.envelopeTo.includes('buyer@example.com'));
  t.match(plain.parsed.subject, /Test email from Lumen Lamps/);
  t.equal(plain.parsed.from?.value[0]?.address, 'hello@lumen.example');

  const templated = await app.request({ method: 'POST', url: '/admin/store/email/test-template', payload: { toEmail: 'tpl@example.com', templateKey: 'order_confirmation' }, ...admin });
  t.equal(templated.status, 200);
  t.equal(templated.body.data.templateKey, 'order_confirmation');
  t.ok(templated.body.data.messageId);
  const rendered = await smtp.waitFor((m) => m.envelopeTo.includes('tpl@example.com'));
  t.equal(rendered.parsed.subject, 'Order #1001 confirmed at Lumen Lamps', 'subject rendered with sample data');
  t.match(rendered.parsed.html, /Sample T-shirt/);
  t.notMatch(rendered.parsed.html, /\{\{/, 'no raw placeholders left');

  for (const key of ['shipping_confirmation', 'password_reset', 'team_invite', 'newsletter_welcome', 'campaign_default']) {
    const response = await app.request({ method: 'POST', url: '/admin/store/email/test-template', payload: { toEmail: `${key}@example.com`, templateKey: key }, ...admin });
    t.equal(response.status, 200, `${key} renders and sends`);
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes(`${key}@example.com`));
    t.notMatch(`${mail.parsed.subject} ${mail.parsed.text}`, /\{\{|\}\}/, `${key} fully rendered`);
  }

  const unknown = await app.request({ method: 'POST', url: '/admin/store/email/test-template', payload: { toEmail: 'x@example.com', templateKey: 'nope' }, ...admin });
  t.equal(unknown.status, 422);
  t.match(unknown.body.error.message, /order_confirmation/);
  t.match(unknown.body.error.details[0], { path: 'templateKey' });

  smtp.rejectRecipients.add('bounce@example.com');
  const failed = await app.request({ method: 'POST', url: '/admin/store/email/test', payload: { toEmail: 'bounce@example.com' }, ...admin });
  t.equal(failed.status, 502);
  t.equal(failed.body.error.code, 'upstream_failed');
  t.match(failed.body.error.message, /550|Mailbox unavailable/);

  const log = await app.ctx.db('emailLog').where({ storeId: owner.store.id }).orderBy('createdAt');
  t.ok(log.length >= 8, 'every email is logged');
  const bounced = log.find((row: { toEmail: string }) => row.toEmail === 'bounce@example.com');
  t.equal(bounced.status, 'failed');
  t.match(bounced.error, /550|Mailbox/);
  const sent = log.find((row: { templateKey: string }) => row.templateKey === 'order_confirmation');
  t.match(sent, { status: 'sent', toEmail: 'tpl@example.com', provider: 'smtp' });
  t.ok(sent.providerMessageId);
});

t.test('without any SMTP server the platform default keeps mail in the local outbox', async (t) => {
  const app = await buildApp(t, { workers: ['email'] });
  const owner = await signupOwner(app);
  const response = await app.request({ method: 'POST', url: '/admin/store/email/test', payload: { toEmail: 'local@example.com' }, token: owner.accessToken, storeId: owner.store.id });
  t.equal(response.status, 200);
  const { readdir, readFile } = await import('node:fs/promises');
  const path = await import('node:path');
  const outbox = path.join(app.ctx.config.storageDir, 'outbox');
  const files = await readdir(outbox);
  t.equal(files.length, 1);
  t.match(await readFile(path.join(outbox, files[0]!), 'utf8'), /To: local@example.com/);
});
