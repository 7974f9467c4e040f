import Joi from 'joi';
import t from 'tap';
import { buildOpenApiDocument } from '../../../src/api/openapi/build-document.js';
import { operationIdFor } from '../../../src/api/openapi/operation-id.js';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin } from '../../helpers/catalog.js';
import { confirm, openSession, sellable, setupShop } from '../../helpers/checkout.js';

/**
 * One app for the file (issue #32: each app costs a cloned database and a server). Each test signs up
 * its own store, so none sees another's data; a test that changes the app itself (a route added, a
 * connection cut, other settings or workers) or counts what the whole app holds builds its own.
 */
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

type Schema = Record<string, any>;
const operationsOf = (document: any) =>
  Object.entries(document.paths as Record<string, Record<string, Schema>>).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

/** Every schema object in the document, with where it is. */
function everySchemaNode(node: unknown, at: string, out: Array<{ at: string; node: Schema }> = []) {
  if (Array.isArray(node)) node.forEach((item, i) => everySchemaNode(item, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    out.push({ at, node: node as Schema });
    for (const [key, value] of Object.entries(node)) everySchemaNode(value, `${at}/${key}`, out);
  }
  return out;
}

/** A value schema says what it is: a type (or types), a reference, a constant, or alternatives that each do. */
function typed(schema: Schema): boolean {
  if (typeof schema.type === 'string' || Array.isArray(schema.type) || typeof schema.$ref === 'string' || 'const' in schema) return true;
  const members = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  return Array.isArray(members) && members.length > 0 && members.every(typed);
}

/** Property schemas of a body, however deep (through items, maps and alternatives). */
function untypedProperties(schema: Schema, at: string, out: string[] = []): string[] {
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    if (!typed(property)) out.push(`${at}.${name}`);
    untypedProperties(property, `${at}.${name}`, out);
  }
  if (schema.items) untypedProperties(schema.items, `${at}[]`, out);
  for (const member of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) untypedProperties(member, at, out);
  return out;
}

t.test('every operation has a unique, stable operationId derived from its route', async (t) => {
  const document = (await app.request({ url: '/openapi.json' })).body;
  const operations = operationsOf(document);
  t.ok(operations.length > 100);
  const missing = operations.filter(({ operation }) => typeof operation.operationId !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(operation.operationId));
  t.same(missing.map(({ method, path }) => `${method} ${path}`), [], 'an operationId a client generator can use as a method name');
  const ids = operations.map(({ operation }) => operation.operationId);
  t.equal(new Set(ids).size, ids.length, 'unique');
  const id = (path: string, method: string) => document.paths[path][method].operationId;
  t.equal(id('/api/v1/admin/orders', 'get'), 'getAdminOrders');
  t.equal(id('/api/v1/admin/orders/{orderId}/fulfillments', 'post'), 'postAdminOrdersByOrderIdFulfillments');
  t.equal(id('/api/v1/storefront/checkout-sessions/{sessionId}/confirm', 'post'), 'postStorefrontCheckoutSessionsBySessionIdConfirm');
  t.equal(id('/api/v1/openapi.json', 'get'), 'getOpenapiJson');
  t.same(buildOpenApiDocument(app.server).paths, document.paths, 'the same on every build');
});

t.test("a route's own id names its operation; two routes that would share one fail the document", async (t) => {
  const app = await buildApp(t);
  const answer = { response: { status: { 200: Joi.object({}) } }, handler: () => ({}) };
  app.server.route({ method: 'GET', path: '/api/v1/reports/sales', options: { auth: false, tags: ['api'], id: 'salesReport', ...answer } });
  t.equal((buildOpenApiDocument(app.server).paths as any)['/api/v1/reports/sales'].get.operationId, 'salesReport');
  app.server.route({ method: 'GET', path: '/api/v1/a-b', options: { auth: false, tags: ['api'], ...answer } });
  app.server.route({ method: 'GET', path: '/api/v1/a/b', options: { auth: false, tags: ['api'], ...answer } });
  t.equal(operationIdFor('get', '/api/v1/a/b'), operationIdFor('get', '/api/v1/a-b'));
  t.throws(() => buildOpenApiDocument(app.server), /GET \/api\/v1\/a-b and GET \/api\/v1\/a\/b have one operationId|GET \/api\/v1\/a\/b and GET \/api\/v1\/a-b have one operationId/);
});

t.test('"or null" is said the JSON Schema way: a type list, or a reference beside { type: null }', async (t) => {
  const document = (await app.request({ url: '/openapi.json' })).body;
  const bad = everySchemaNode(document, '#').filter(({ node }) => 'nullable' in node && typeof node.nullable === 'boolean');
  t.same(bad.map(({ at }) => at), [], 'no OpenAPI 3.0 nullable (3.1 validators ignore it)');
  const nullRef = { anyOf: [{ $ref: '#/components/schemas/Address' }, { type: 'null' }] };
  t.same(document.components.schemas.Order.properties.billingAddress, nullRef, 'a nullable reference');
  t.same(document.components.schemas.Order.properties.cancelReason.type, ['string', 'null'], 'a nullable value');
  const mixed = everySchemaNode(document, '#').filter(({ node }) => typeof node.$ref === 'string' && Object.keys(node).length > 1);
  t.same(mixed.map(({ at }) => at), [], 'a reference stands alone (tools disagree on what its siblings mean)');
});

t.test('request bodies are documented and typed: uploads, variant price, discount value', async (t) => {
  const document = (await app.request({ url: '/openapi.json' })).body;
  const body = (path: string, method: string) => document.paths[`/api/v1${path}`][method].requestBody;

  const csv = body('/admin/customers/import', 'post');
  t.ok(csv?.required, 'the customers import documents its body');
  t.same(csv.content['text/csv'].schema, { type: 'string', format: 'binary' });
  t.match(csv.content['multipart/form-data'].schema, { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } });
  const media = body('/admin/store/media', 'post');
  t.ok(media?.required, 'the media upload documents its body');
  t.match(media.content['multipart/form-data'].schema, { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' }, alt: { type: 'string' } } });
  t.match(media.content['multipart/form-data'].encoding.file.contentType, /image\/png/);
  t.notOk(media.content['application/json'], 'no JSON body is claimed');

  for (const [path, method] of [
    ['/admin/products', 'post'],
    ['/admin/products/{productId}', 'patch']
  ] as const) {
    const price = body(path, method).content['application/json'].schema.properties.variants.items.properties.price;
    t.equal(price.type, 'integer', `${method} ${path}: variant price is an integer`);
    t.notOk(price.anyOf, 'not any type');
    t.match(price.description, /required for a new variant/);
  }
  for (const [path, method] of [
    ['/admin/discounts', 'post'],
    ['/admin/discounts/{discountId}', 'put']
  ] as const) {
    const schema = body(path, method).content['application/json'].schema;
    const value = schema.properties.value;
    t.same(value.anyOf.map((member: Schema) => member.type), ['number', 'integer'], `${method} ${path}: value is a percentage or minor units`);
    t.same(value.anyOf[0], { type: 'number', exclusiveMinimum: 0, maximum: 100 }, 'above 0 (JSON Schema 2020-12: a number), at most 100');
    t.match(value.anyOf[1], { minimum: 1 });
    t.notOk(JSON.stringify(value).includes('null'), 'never null');
    t.notOk(schema.required.includes('value'), 'required only for some types, which the description says');
    t.match(value.description, /free_shipping/);
  }

  const untyped = operationsOf(document).flatMap(({ path, method, operation }) =>
    Object.entries((operation.requestBody?.content ?? {}) as Record<string, { schema: Schema }>).flatMap(([type, { schema }]) => untypedProperties(schema, `${method} ${path} ${type}`))
  );
  t.same(untyped, [], 'no request body property is left untyped');
  const undocumentedUploads = operationsOf(document)
    .filter(({ operation }) => !operation.requestBody)
    .filter(({ path, method }) => {
      const output = app.server.table().find((route) => route.method === method && route.path === path)!.settings.payload?.output;
      return output === 'file' || output === 'stream';
    });
  t.same(undocumentedUploads.map(({ method, path }) => `${method} ${path}`), [], 'every upload route documents its body');
});

t.test('orders list: paymentStatus and fulfillmentStatus filter separately, combine, and the old status filter still works', async (t) => {
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Lamp', [{ price: 2500, stock: 50 }]);
  const numbers: number[] = [];
  for (let i = 0; i < 4; i++) {
    const { session } = await openSession(app, owner, [{ variantId: product.variants[0]!.id, quantity: 1 }], { email: `buyer${i}@example.com` });
    const confirmed = await confirm(app, owner, session.body.data.checkoutSession.id);
    t.equal(confirmed.status, 200, 'order placed');
    numbers.push(confirmed.body.data.order.number);
  }
  const [n1, n2, n3, n4] = numbers as [number, number, number, number];
  const byNumber = (n: number) => app.ctx.db('orders').where({ storeId: owner.store.id, number: n });
  await byNumber(n1).update({ paymentStatus: 'paid', fulfillmentStatus: 'fulfilled' });
  await byNumber(n2).update({ paymentStatus: 'paid', fulfillmentStatus: 'unfulfilled' });
  await byNumber(n3).update({ paymentStatus: 'pending', fulfillmentStatus: 'partially_fulfilled' });
  await byNumber(n4).update({ paymentStatus: 'refunded', fulfillmentStatus: 'unfulfilled', status: 'cancelled' });

  const list = async (query: string, who = owner) => {
    const response = await app.request({ url: `/admin/orders?${query}`, ...admin(who) });
    t.equal(response.status, 200, query);
    return (response.body.data.orders as Array<{ number: number }>).map((order) => order.number).sort();
  };
  t.same(await list('paymentStatus=paid'), [n1, n2].sort());
  t.same(await list('fulfillmentStatus=unfulfilled'), [n2, n4].sort());
  t.same(await list('paymentStatus=paid&fulfillmentStatus=unfulfilled'), [n2], 'the filters combine');
  t.same(await list('status=open&fulfillmentStatus=unfulfilled'), [n2], 'with the order status too');
  t.same(await list('fulfillmentStatus=partially_fulfilled&paymentStatus=pending'), [n3]);
  t.same(await list('status=paid'), [n1, n2].sort(), 'status= still takes a payment status');
  t.same(await list('status=unfulfilled'), [n2, n4].sort(), 'and a fulfilment status');
  t.same(await list('paymentStatus=paid&limit=1').then((page) => page.length), 1, 'pages as before');
  t.same(await list('paymentStatus=paid', other), [], 'another store sees none');
  for (const query of ['paymentStatus=unfulfilled', 'fulfillmentStatus=paid', 'paymentStatus=', 'fulfillmentStatus=bogus']) {
    const bad = await app.request({ url: `/admin/orders?${query}`, ...admin(owner) });
    t.equal(bad.status, 422, query);
    t.equal(bad.body.error.code, 'validation_failed');
  }
  const parameters = (await app.request({ url: '/openapi.json' })).body.paths['/api/v1/admin/orders'].get.parameters;
  const param = (name: string) => parameters.find((p: Schema) => p.name === name);
  t.same(param('paymentStatus').schema.enum, ['pending', 'authorized', 'paid', 'partially_refunded', 'refunded', 'voided', 'failed']);
  t.same(param('fulfillmentStatus').schema.enum, ['unfulfilled', 'partially_fulfilled', 'fulfilled']);
  t.ok(param('status'), 'the existing filter stays documented');
});
