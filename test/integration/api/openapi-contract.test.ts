import { createConfig, lintFromString } from '@redocly/openapi-core';
import Joi from 'joi';
import t from 'tap';
import { conflict } from '../../../src/errors.js';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';
import { admin, multipart } from '../../helpers/catalog.js';
import { ADDRESS, sellable, setupShop } from '../../helpers/checkout.js';
import { ajvFor, compileSchema, contractProblem } from '../../helpers/openapi-contract.js';

/**
 * One app for the file (issue #32: each app costs a cloned database and a server). Each test signs up
 * its own store, so none sees another's data; a test that changes the app itself (a route added, a
 * connection cut, other settings or workers) or counts what the whole app holds builds its own.
 */
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

/**
 * Issue #31 item 8: the OpenAPI document says what the service does. Every response of the suite is
 * held to it by helpers/openapi-contract.ts (installed by buildApp); these tests prove that check
 * bites, and pin what standard tools found wrong with the document.
 */

type Schema = Record<string, any>;
const documentOf = async (app: Awaited<ReturnType<typeof buildApp>>) => (await app.request({ url: '/openapi.json' })).body as Schema;
const operationsOf = (document: Schema) =>
  Object.entries(document.paths as Record<string, Record<string, Schema>>).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

t.test('every schema in the document compiles with a strict JSON Schema 2020-12 validator (ajv)', async (t) => {
  const document = await documentOf(app);
  t.equal(document.openapi, '3.1.0', 'OpenAPI 3.1: its schemas are JSON Schema, "or null" included');
  const ajv = ajvFor(document);
  const failures: string[] = [];
  const compile = (where: string, schema: unknown) => {
    try {
      compileSchema(ajv, schema);
    } catch (error) {
      failures.push(`${where}: ${(error as Error).message}`);
    }
  };
  for (const name of Object.keys(document.components.schemas)) compile(`#/components/schemas/${name}`, { $ref: `#/components/schemas/${name}` });
  for (const { path, method, operation } of operationsOf(document)) {
    for (const parameter of operation.parameters ?? []) compile(`${method} ${path} parameter ${parameter.name}`, parameter.schema);
    for (const [type, media] of Object.entries((operation.requestBody?.content ?? {}) as Record<string, Schema>)) compile(`${method} ${path} body ${type}`, media.schema);
    for (const [status, response] of Object.entries(operation.responses as Record<string, Schema>)) {
      for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Schema>)) compile(`${method} ${path} ${status} ${type}`, media.schema);
    }
  }
  t.same(failures, [], 'no schema is refused (an empty anyOf, a nullable that JSON Schema does not know, …)');
  const unsubscribe = document.paths['/api/v1/public/unsubscribe'].post.requestBody;
  t.same(unsubscribe.content['application/json'].schema.anyOf.map((member: Schema) => member.type), ['object', 'string', 'null'], 'the unsubscribe body: { token }, text, or none');
  t.equal(unsubscribe.required, false, 'a body that may be null is not required (?token= alone is enough)');
  t.notOk(JSON.stringify(document).includes('"nullable"'), 'no OpenAPI 3.0 nullable is left');
});

t.test('nullable references take null: a product without an image, a cart without a shipping method, an order without a billing address', async (t) => {
  // The check is called directly here (buildApp's own is off), so these assertions hold on their own.
  const app = await buildApp(t, { contract: false });
  const owner = await signupOwner(app);
  await setupShop(app, owner);
  const product = await sellable(app, owner, 'Imageless', [{ price: 900, stock: 5 }]);
  const checked = async (options: { method?: string; url: string; payload?: unknown; headers?: Record<string, string> }) => {
    const response = await app.server.inject({ method: options.method ?? 'GET', url: `/api/v1${options.url}`, payload: options.payload as object, headers: options.headers ?? {} });
    t.equal(contractProblem(app.server, response), null, `${options.method ?? 'GET'} ${options.url} ${response.statusCode} matches the document`);
    return { status: response.statusCode, body: JSON.parse(response.payload) };
  };
  const adminHeaders = { authorization: `Bearer ${owner.accessToken}`, 'x-store-id': owner.store.id };
  const storefront = { 'x-storefront-token': owner.storefrontToken };

  const listed = await checked({ url: '/storefront/products', headers: storefront });
  t.equal(listed.body.data.products[0].featuredImage, null, 'the storefront lists it with featuredImage null');
  const read = await checked({ url: `/storefront/products/${product.slug}`, headers: storefront });
  t.equal(read.body.data.product.featuredImage, null);
  const cart = await checked({ method: 'POST', url: '/storefront/carts', payload: { items: [{ variantId: product.variants[0]!.id, quantity: 1 }] }, headers: storefront });
  t.equal(cart.body.data.cart.shippingMethod, null, 'a new cart has no shipping method');
  const cartId = cart.body.data.cart.id;
  await checked({ method: 'POST', url: `/storefront/carts/${cartId}/shipping-method`, payload: { shippingMethodId: (await app.ctx.db('stores').where({ id: owner.store.id }).first()).shippingMethods[0].id }, headers: storefront });
  const session = await checked({ method: 'POST', url: `/storefront/carts/${cartId}/checkout-session`, payload: { email: 'nobill@example.com', shippingAddress: ADDRESS }, headers: storefront });
  const placed = await checked({ method: 'POST', url: `/storefront/checkout-sessions/${session.body.data.checkoutSession.id}/confirm`, headers: storefront });
  t.equal(placed.body.data.order.billingAddress, null, 'an order without a billing address');
  await checked({ url: `/admin/orders/${placed.body.data.order.id}`, headers: adminHeaders });
  const store = await checked({ url: '/admin/store', headers: adminHeaders });
  t.equal(store.body.data.store.email.smtp, null, 'a store on the platform mailer has no smtp settings');

  // The same data under the OpenAPI 3.0 idiom the document used before (nullable beside allOf) is refused:
  // what every 3.0 validator did with a product without an image.
  const document = JSON.parse((await app.server.inject({ url: '/api/v1/openapi.json' })).payload) as Schema;
  const old = compileSchema(ajvFor(document), { type: 'object', allOf: [{ $ref: '#/components/schemas/StorefrontImage' }] });
  t.notOk(old(null), 'allOf a reference never takes null, whatever a nullable beside it says');
});

t.test('the statuses the service answers are listed: 404 before a domain or link exists, 422 for an empty upload, 400 from the receivers', async (t) => {
  const owner = await signupOwner(app);
  const document = await documentOf(app);
  const listed = (path: string, method: string) => Object.keys(document.paths[`/api/v1${path}`][method].responses);
  // Each request below goes through buildApp's contract check too: an unlisted status fails it.
  for (const [method, path] of [
    ['GET', '/admin/store/domain'],
    ['POST', '/admin/store/domain/check'],
    ['GET', '/admin/store/external-system'],
    ['POST', '/admin/store/external-system/sync'],
    ['POST', '/admin/store/external-system/disconnect']
  ] as const) {
    const response = await app.request({ method, url: path, ...admin(owner) });
    t.equal(response.status, 404, `${method} ${path} before one exists`);
    t.ok(listed(path, method.toLowerCase()).includes('404'), `${method} ${path} lists 404`);
  }
  const empty = multipart(null, { alt: 'nothing attached' });
  const upload = await app.request({ method: 'POST', url: '/admin/store/media', payload: empty.payload, headers: empty.headers, ...admin(owner) });
  t.equal(upload.status, 422, 'an upload without a file');
  t.ok(listed('/admin/store/media', 'post').includes('422'));

  for (const path of ['/internal/webhooks/stripe', '/internal/webhooks/hosted-domain', '/internal/external-system/backfill', '/internal/external-system/disconnect']) {
    const operation = document.paths[`/api/v1${path}`].post;
    const response = await app.request({ method: 'POST', url: path, payload: JSON.stringify({ accountId: 'acct_1', hostname: 'shop.example.com' }), headers: { 'content-type': 'application/json' } });
    t.equal(response.status, 400, `${path}: an unsigned delivery`);
    t.ok(listed(path, 'post').includes('400'), `${path} lists 400`);
    t.ok(operation.requestBody?.content['application/json'].schema.properties, `${path} documents its body`);
    t.ok(operation.parameters.some((parameter: Schema) => parameter.in === 'header' && parameter.required), `${path} documents its signature header`);
  }
  t.same(document.paths['/api/v1/internal/external-system/backfill'].post.requestBody.content['application/json'].schema.required, ['accountId']);
  t.same(document.paths['/api/v1/internal/webhooks/stripe'].post.requestBody.content['application/json'].schema.required, ['id', 'type', 'created', 'data'], 'the envelope the receiver checks');

  const export413 = await app.request({ method: 'POST', url: '/admin/customers/export', payload: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }), headers: { 'content-type': 'application/json' }, ...admin(owner) });
  t.equal(export413.status, 413, 'a route that takes no body still reads one, up to its limit');
  const export415 = await app.request({ method: 'POST', url: '/admin/customers/export', payload: 'hello', headers: { 'content-type': 'text/plain' }, ...admin(owner) });
  t.equal(export415.status, 415, 'and only as JSON');
});

t.test('a global tag list; every operation has a tag from it, a summary and a description; no component is unused', async (t) => {
  const document = await documentOf(app);
  const tags = new Map((document.tags as Array<{ name: string; description?: string }>).map((tag) => [tag.name, tag.description]));
  t.ok(tags.size > 10, `${tags.size} tags`);
  t.same([...tags.keys()], [...tags.keys()].sort(), 'listed alphabetically');
  t.same([...tags].filter(([, description]) => !description).map(([name]) => name), [], 'every tag says what it groups (src/api/openapi/tags.ts)');
  const used = new Set<string>();
  const lacking: string[] = [];
  for (const { path, method, operation } of operationsOf(document)) {
    const where = `${method} ${path}`;
    if (!operation.tags?.length) lacking.push(`${where}: no tag`);
    for (const tag of operation.tags ?? []) {
      used.add(tag);
      if (!tags.has(tag)) lacking.push(`${where}: tag ${tag} is not in the list`);
    }
    if (!operation.summary) lacking.push(`${where}: no summary`);
    if (!operation.description) lacking.push(`${where}: no description`);
    if (operation.summary?.length > 100) lacking.push(`${where}: a summary of ${operation.summary.length} characters`);
    // A status the description promises ("409 while the export is queued") is one the responses list.
    for (const [, status] of `${operation.description}`.matchAll(/\b(4\d\d|50[0-4])\b/g)) {
      if (!operation.responses[status!]) lacking.push(`${where}: the description names ${status}, the responses do not`);
    }
  }
  t.same(lacking, []);
  t.same([...tags.keys()].filter((tag) => !used.has(tag)), [], 'every listed tag is used');
  t.same(document.paths['/api/v1/storefront/store'].get.tags, ['store']);

  // Components reachable from the paths, through references inside components too.
  const schemas = document.components.schemas as Record<string, unknown>;
  const reached = new Set<string>();
  const pending = [JSON.stringify(document.paths)];
  while (pending.length) {
    for (const [, name] of pending.pop()!.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (reached.has(name!)) continue;
      reached.add(name!);
      pending.push(JSON.stringify(schemas[name!]));
    }
  }
  t.same(Object.keys(schemas).filter((name) => !reached.has(name)), [], 'no unused component');
  const securitySchemes = Object.keys(document.components.securitySchemes);
  const usedSchemes = new Set(operationsOf(document).flatMap(({ operation }) => (operation.security as object[]).flatMap((requirement) => Object.keys(requirement))));
  t.same(securitySchemes.filter((scheme) => !usedSchemes.has(scheme)), [], 'no unused security scheme');
});

/**
 * Redocly's recommended rules, run offline through @redocly/openapi-core (the library the Redocly CLI
 * is built on). Each warning accepted here is listed with its reason, as in the README.
 */
const ACCEPTED_WARNINGS: Record<string, string> = {
  'info-license': 'Shopwright is not published under a licence; an operator who publishes the document adds their own'
};

t.test("Redocly's recommended rules: no error, and no warning but those accepted with a reason", async (t) => {
  const document = await documentOf(app);
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
  const described = problems.map((problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer ?? ''}: ${problem.message}`);
  t.same(described.filter((problem) => problem.startsWith('error')), [], 'no error');
  t.same(described.filter((problem) => !(problem.split(' ')[1]! in ACCEPTED_WARNINGS)), [], 'no warning but the accepted ones');
});

t.test('the test app holds every response to the document: an unlisted status, an unknown error code or an undocumented content type fails the request', async (t) => {
  const app = await buildApp(t);
  const route = (path: string, handler: (request: any, h: any) => unknown, errors: number[] = []) =>
    app.server.route({
      method: 'GET',
      path: `/api/v1/contract/${path}`,
      options: { auth: false, tags: ['api', 'docs'], description: `contract probe ${path}`, plugins: { openapi: { errors } }, response: { status: { 200: Joi.object({ n: Joi.number() }) } }, handler }
    });
  route('fine', () => ({ n: 1 }));
  route('unlisted', () => {
    throw conflict('conflict', 'a 409 this route does not declare');
  });
  route('unknown-code', () => {
    throw conflict('made_up_code', 'a code the document does not list');
  }, [409]);
  route('html', (_request, h) => h.response('<p>hi</p>').type('text/html'));
  t.equal((await app.request({ url: '/contract/fine' })).status, 200, 'a documented answer passes');
  await t.rejects(app.request({ url: '/contract/unlisted' }), /OpenAPI contract: GET \/api\/v1\/contract\/unlisted .*answered 409, which the OpenAPI document does not list/);
  await t.rejects(app.request({ url: '/contract/unknown-code' }), /answered 409 with a body the OpenAPI document does not allow: \/error\/code must be equal to one of the allowed values/);
  await t.rejects(app.request({ url: '/contract/html' }), /answered 200 as text\/html, where the OpenAPI document lists application\/json/);
  await t.rejects(app.server.inject({ url: '/api/v1/contract/unlisted' }), /OpenAPI contract/, 'direct server.inject calls (the route walk) are checked too');
  t.equal((await app.request({ url: '/nowhere-documented' })).status, 404, 'a path outside the document is not its business');
});
