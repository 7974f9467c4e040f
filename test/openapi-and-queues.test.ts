import t from 'tap';
import { buildApp, signupOwner } from './helpers/app.js';

t.test('GET /openapi.json documents the routes from their joi schemas', async (t) => {
  const app = await buildApp(t);
  const response = await app.request({ url: '/openapi.json' });
  t.equal(response.status, 200);
  t.equal(response.body.openapi, '3.0.3');
  const signup = response.body.paths['/api/v1/auth/signup'].post;
  t.same(signup.requestBody.content['application/json'].schema.required.sort(), ['email', 'firstName', 'lastName', 'password', 'storeName', 'storeSlug']);
  const put = response.body.paths['/api/v1/admin/discounts/{discountId}'].put;
  t.equal(put.parameters[0].name, 'discountId');
  t.same(put.security, [{ bearerAuth: [], storeId: [] }]);
  t.ok(response.body.paths['/api/v1/storefront/store'].get);
  t.notOk(response.body.paths['/{any}'], 'the catch-all is not documented');
});

t.test('a request that needs the queue answers 503 when Redis is down, after nothing half-done', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  app.ctx.redis.disconnect();
  const response = await app.request({ method: 'POST', url: '/auth/forgot-password', payload: { email: owner.email } });
  t.equal(response.status, 503);
  t.equal(response.body.error.code, 'service_unavailable');
});

t.test('an email job retried after success does not send twice', async (t) => {
  const { SmtpCapture } = await import('./helpers/smtp-capture.js');
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { env: { SMTP_URL: smtp.url } });
  const { enqueueEmail, deliverEmail } = await import('../src/services/email/outbox.js');
  const { job } = await enqueueEmail(app.ctx, { storeId: null, to: 'once@example.com', templateKey: 'password_reset', data: { user: { firstName: 'A' }, resetUrl: 'http://x', expiresInMinutes: 60 } });
  const first = await deliverEmail(app.ctx, job.data);
  const second = await deliverEmail(app.ctx, job.data);
  t.equal(second.messageId, first.messageId);
  await smtp.waitFor((m) => m.envelopeTo.includes('once@example.com'));
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(smtp.messages.filter((m) => m.envelopeTo.includes('once@example.com')).length, 1);
});
