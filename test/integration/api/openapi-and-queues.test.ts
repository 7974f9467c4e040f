import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { needsSingleRedis, redisOf } from '../../helpers/backends.js';

/**
 * One app for the file (issue #32: each app costs a cloned database and a server). Each test signs up
 * its own store, so none sees another's data; a test that changes the app itself (a route added, a
 * connection cut, other settings or workers) or counts what the whole app holds builds its own.
 */
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('GET /openapi.json documents the routes from their joi schemas', async (t) => {
  const response = await app.request({ url: '/openapi.json' });
  t.equal(response.status, 200);
  t.equal(response.body.openapi, '3.1.0');
  const signup = response.body.paths['/api/v1/auth/signup'].post;
  t.same(signup.requestBody.content['application/json'].schema.required.sort(), ['email', 'firstName', 'lastName', 'password', 'storeName', 'storeSlug']);
  const put = response.body.paths['/api/v1/admin/discounts/{discountId}'].put;
  t.equal(put.parameters[0].name, 'discountId');
  t.same(put.security, [{ bearerAuth: [], storeId: [] }, { adminApiKey: [] }], 'a person, or an API key with the scope');
  t.equal(put['x-api-key-scope'], 'marketing');
  t.ok(response.body.paths['/api/v1/storefront/store'].get);
  t.notOk(response.body.paths['/{any}'], 'the catch-all is not documented');
});

t.test('a route documents its response data schema, and a response that drifts from it fails loudly in tests', async (t) => {
  const app = await buildApp(t);
  const document = (await app.request({ url: '/openapi.json' })).body;
  const created = document.paths['/api/v1/admin/discounts'].post.responses['201'].content['application/json'].schema;
  t.same(created.required, ['success', 'data', 'meta']);
  t.equal(created.properties.data.properties.discount.$ref, '#/components/schemas/Discount');
  t.ok(document.components.schemas.Discount.properties.usageCount, 'the data schema reaches the discount fields');

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

t.test('labelled response schemas are named components, so a generated client gets one type per resource', async (t) => {
  const document = (await app.request({ url: '/openapi.json' })).body;
  const schemas = document.components.schemas;
  const data = (path: string, method: string, status: string) => document.paths[path][method].responses[status].content['application/json'].schema.properties.data;

  t.equal(data('/api/v1/admin/orders/{orderId}', 'get', '200').properties.order.$ref, '#/components/schemas/Order');
  t.equal(data('/api/v1/storefront/checkout-sessions/{sessionId}/confirm', 'post', '200').properties.order.$ref, '#/components/schemas/Order', 'one Order type wherever an order is answered');
  t.equal(schemas.Order.properties.items.items.$ref, '#/components/schemas/OrderItem');
  t.same(schemas.Order.properties.billingAddress, { anyOf: [{ $ref: '#/components/schemas/Address' }, { type: 'null' }] }, 'a nullable use keeps the reference');
  t.same(schemas.Address.required, ['firstName', 'lastName', 'line1', 'city', 'postalCode', 'country']);
  t.same(schemas.OptionValues, { type: 'object', additionalProperties: { type: 'string' } }, 'a map publishes its value type, not an object without keys');
  t.same(schemas.NewsletterSubscription.anyOf, [{ $ref: '#/components/schemas/NewsletterSubscribed' }, { $ref: '#/components/schemas/NewsletterPendingConfirmation' }]);

  const review = document.paths['/api/v1/storefront/products/{slug}/reviews'].put.responses;
  t.ok(review['201'] && review['200'], 'every declared success status is documented (201 created, 200 updated)');
  t.equal(review['201'].content['application/json'].schema.properties.data.properties.review.$ref, '#/components/schemas/WrittenReview');
});

t.test('routes that answer no JSON envelope document what they do answer', async (t) => {
  const paths = (await app.request({ url: '/openapi.json' })).body.paths;
  const click = paths['/api/v1/public/c/{clickToken}'].get.responses;
  t.notOk(click['200'], 'a campaign link is no JSON success');
  t.ok(click['302'].headers.Location);
  t.notOk(click['302'].content, 'a redirect has no body');
  const media = paths['/api/v1/public/media/{mediaId}'].get.responses['200'].content;
  t.same(media['image/png'].schema, { type: 'string', format: 'binary' });
  t.notOk(media['application/json']);
  t.same(paths['/api/v1/openapi.json'].get.responses['200'].content['application/json'].schema, { type: 'object' }, 'the document itself is not enveloped');
});

t.test('two different schemas under one label fail the document instead of one silently replacing the other', async (t) => {
  const app = await buildApp(t);
  const Joi = (await import('joi')).default;
  const { buildOpenApiDocument } = await import('../../../src/api/openapi/build-document.js');
  t.ok((buildOpenApiDocument(app.server).components.schemas as Record<string, unknown>).Cart);
  app.server.route({
    method: 'GET',
    path: '/api/v1/impostor-cart',
    options: { auth: false, tags: ['api'], response: { status: { 200: Joi.object({ id: Joi.string() }).label('Cart') } }, handler: () => ({ id: 'x' }) }
  });
  t.throws(() => buildOpenApiDocument(app.server), /two different schemas are labelled Cart/);
});

t.test('every documented route declares what it answers on success: a data schema, or its non-envelope body', async (t) => {
  const undeclared = app.server
    .table()
    .filter((route) => route.settings.tags?.includes('api'))
    .filter((route) => {
      const statuses = Object.keys((route.settings.response as { status?: object } | undefined)?.status ?? {}).filter((code) => Number(code) < 300);
      return statuses.length === 0 && !route.settings.plugins?.openapi?.success;
    })
    .map((route) => `${route.method.toUpperCase()} ${route.path}`);
  t.same(undeclared, [], 'a new route joins by declaring response.status (or plugins.openapi.success)');
  const document = (await app.request({ url: '/openapi.json' })).body;
  const deleted = document.paths['/api/v1/admin/marketing/lists/{listId}'].delete.responses;
  t.ok(deleted['204'], 'a 204 is documented as such');
  t.notOk(deleted['200']);
});

t.test("a route's business-rule failures are documented beside those derived from auth and validation", async (t) => {
  const paths = (await app.request({ url: '/openapi.json' })).body.paths;
  const responses = (path: string, method: string) => Object.keys(paths[`/api/v1${path}`][method].responses);
  t.ok(responses('/admin/marketing/campaigns/{campaignId}/cancel', 'post').includes('409'), 'cancel: campaign_not_cancellable');
  t.ok(responses('/admin/marketing/templates', 'post').includes('409'), 'template key taken');
  t.ok(responses('/admin/marketing/templates/{templateId}', 'put').includes('409'), 'template key taken');
  for (const type of ['product-announcement', 'collection-announcement']) {
    t.ok(responses(`/admin/marketing/campaigns/${type}`, 'post').includes('404'), `${type}: unknown product or collection`);
  }
  t.notOk(responses('/admin/marketing/campaigns/newsletter', 'post').includes('404'), 'only where it can happen');
  t.ok(responses('/admin/marketing/templates', 'post').includes('422'), 'the derived statuses stay');
  for (const [path, method, codes] of [
    ['/auth/signup', 'post', ['409', '429']],
    ['/auth/login', 'post', ['401', '429']],
    ['/admin/discounts', 'post', ['409']],
    ['/storefront/checkout-sessions/{sessionId}/confirm', 'post', ['409']],
    ['/admin/orders/{orderId}/fulfillments', 'post', ['409']],
    ['/admin/customers/import', 'post', ['413', '415']]
  ] as const) {
    for (const code of codes) t.ok(responses(path, method).includes(code), `${method} ${path} documents ${code}`);
  }
  for (const code of ['400', '413', '415']) t.ok(responses('/admin/products', 'post').includes(code), `a JSON body documents ${code}`);
  t.ok(responses('/admin/customers/export', 'post').includes('413'), 'hapi reads (and limits) the body of every POST, even one that takes none');
  t.notOk(paths['/api/v1/admin/customers/export'].post.requestBody, 'which documents no request body');
});

t.test('a request that waits on its job answers 503 when Redis is down, and nothing is sent later', { skip: needsSingleRedis }, async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  await app.ctx.queues.eventsFor('email');
  redisOf(app.ctx).disconnect();
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
  t.match(log, { status: 'withdrawn', error: /withdrawn/ });
});

t.test('an email job retried after success does not send twice', async (t) => {
  const { SmtpCapture } = await import('../../helpers/smtp-capture.js');
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { env: { SMTP_URL: smtp.url } });
  const { enqueueEmail } = await import('../../../src/services/email/outbox.js');
  const { deliverEmail } = await import('../../../src/services/email/delivery.js');
  const { jobId } = await enqueueEmail(app.ctx, { storeId: null, to: 'once@example.com', templateKey: 'password_reset', data: { user: { firstName: 'A' }, resetUrl: 'http://x', expiresInMinutes: 60 } });
  await app.ctx.outbox.drain();
  const job = await app.ctx.queues.get('email').getJob(jobId);
  t.ok(job, 'the relay queued the job under the email log id');
  const first = await deliverEmail(app.ctx, job!.data);
  const second = await deliverEmail(app.ctx, job!.data);
  t.equal(second.messageId, first.messageId);
  // deliverEmail resolves on the server's 250, which the capture sends only once it kept the
  // message: both sends are over, so what it holds now is all there will be.
  t.equal(smtp.messages.filter((m) => m.envelopeTo.includes('once@example.com')).length, 1);
});
