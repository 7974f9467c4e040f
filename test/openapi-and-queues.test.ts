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

t.test('a route documents its response data schema, and a response that drifts from it fails loudly in tests', async (t) => {
  const app = await buildApp(t);
  const document = (await app.request({ url: '/openapi.json' })).body;
  const created = document.paths['/api/v1/admin/discounts'].post.responses['201'].content['application/json'].schema;
  t.same(created.required, ['success', 'data', 'meta']);
  t.ok(created.properties.data.properties.discount.properties.usageCount, 'the data schema reaches the discount fields');

  const Joi = (await import('joi')).default;
  app.server.route({
    method: 'GET',
    path: '/api/v1/drifting',
    options: { auth: false, response: { status: { 200: Joi.object({ count: Joi.number().required() }) } }, handler: () => ({ count: 'many' }) }
  });
  const drifted = await app.request({ url: '/drifting' });
  t.equal(drifted.status, 500);
  t.match(drifted.body.error.details, [{ path: 'count', message: /must be a number/ }]);
});

t.test('a request that waits on its job answers 503 when Redis is down, and nothing is sent later', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  await app.ctx.queues.eventsFor('email');
  app.ctx.redis.disconnect();
  const response = await app.request({
    method: 'POST',
    url: '/admin/store/email/test',
    token: owner.accessToken,
    storeId: owner.store.id,
    payload: { toEmail: 'ops@example.com' }
  });
  t.equal(response.status, 503);
  t.equal(response.body.error.code, 'service_unavailable');
  t.equal(Number((await app.ctx.db('outbox').count('* as n').first())!.n), 0, 'the test send was withdrawn from the outbox');
  const log = await app.ctx.db('emailLog').where({ toEmail: 'ops@example.com' }).first();
  t.match(log, { status: 'failed', error: /withdrawn/ });
});

t.test('an email job retried after success does not send twice', async (t) => {
  const { SmtpCapture } = await import('./helpers/smtp-capture.js');
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { env: { SMTP_URL: smtp.url } });
  const { enqueueEmail } = await import('../src/services/email/outbox.js');
  const { deliverEmail } = await import('../src/services/email/delivery.js');
  const { jobId } = await enqueueEmail(app.ctx, { storeId: null, to: 'once@example.com', templateKey: 'password_reset', data: { user: { firstName: 'A' }, resetUrl: 'http://x', expiresInMinutes: 60 } });
  await app.ctx.outbox.drain();
  const job = await app.ctx.queues.get('email').getJob(jobId);
  t.ok(job, 'the relay queued the job under the email log id');
  const first = await deliverEmail(app.ctx, job!.data);
  const second = await deliverEmail(app.ctx, job!.data);
  t.equal(second.messageId, first.messageId);
  await smtp.waitFor((m) => m.envelopeTo.includes('once@example.com'));
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(smtp.messages.filter((m) => m.envelopeTo.includes('once@example.com')).length, 1);
});
