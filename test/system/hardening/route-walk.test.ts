import type { RequestRoute } from '@hapi/hapi';
import type Joi from 'joi';
import t, { type Test } from 'tap';
import { buildApp, signupOwner, type Owner, type TestApp } from '../../helpers/app.js';

/**
 * Walks EVERY registered route (read from `server.table()`, so routes added later join by being
 * registered) with malformed params, queries and bodies, as each of its callers would send them, and
 * asserts that none answers 5xx. Add nothing here when adding a route.
 */

const crafted = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const LONG = 'x'.repeat(5000);
/** Already URL-encoded (some deliberately invalid: a NUL, bytes that are not UTF-8). */
const WEIRD_STRINGS = ['', '%20', 'not-a-uuid', '00000000-0000-0000-0000-000000000000', LONG, 'a%00b', '%F0%28%8C%28', '%C0%AF', '..%2F..%2Fetc%2Fpasswd', '%27%3B%20drop%20table%20stores%3B%20--', '%E2%80%AE', '%25'];
const WEIRD_VALUES: unknown[] = [null, true, -1, 1.5, 2147483648, -1e308, LONG, 'a\u0000b', [1, 'a', null], { nested: { deep: [{}] } }, '2026-13-45'];
const CURSORS = [crafted([{}, []]), crafted(['x', 'y', 'z']), crafted([1e300, 'x']), 'not base64!', crafted(null), crafted('string'), LONG.slice(0, 999)];

function schemaKeys(schema: unknown): string[] {
  if (!schema || typeof (schema as Joi.Schema).describe !== 'function') return [];
  const description = (schema as Joi.Schema).describe() as { keys?: Record<string, unknown>; matches?: Array<{ schema?: { keys?: Record<string, unknown> } }> };
  const keys = new Set(Object.keys(description.keys ?? {}));
  for (const match of description.matches ?? []) for (const key of Object.keys(match.schema?.keys ?? {})) keys.add(key);
  return [...keys];
}

function fillPath(path: string, value: string): string {
  return path.replace(/\{(\w+)\*?\??\}/g, () => value);
}

interface Probe {
  method: string;
  url: string;
  payload?: unknown;
  headers?: Record<string, string>;
}

function probesFor(route: RequestRoute, validParams: Record<string, string>): Probe[] {
  const method = route.method.toUpperCase();
  const probes: Probe[] = [];
  const validate = route.settings.validate ?? {};
  const hasParams = /\{\w+/.test(route.path);
  const goodPath = route.path.replace(/\{(\w+)\*?\??\}/g, (_m, name: string) => validParams[name] ?? '00000000-0000-0000-0000-000000000000');
  // Malformed params.
  if (hasParams) for (const value of WEIRD_STRINGS) if (value) probes.push({ method, url: fillPath(route.path, value) });
  // Malformed queries: pagination, and each declared key given odd values.
  const queryKeys = ['limit', 'cursor', 'token', 'q', ...schemaKeys(validate.query)];
  for (const key of new Set(queryKeys)) {
    // Every odd string for the keys all lists share; a sample of them for the route's own keys.
    const values = key === 'cursor' ? [...WEIRD_STRINGS, ...CURSORS] : key === 'limit' ? WEIRD_STRINGS : WEIRD_STRINGS.filter((_, i) => i % 2 === 1);
    for (const value of values) probes.push({ method, url: `${goodPath}?${key}=${value}` });
    probes.push({ method, url: `${goodPath}?${key}=1&${key}=2` }, { method, url: `${goodPath}?${key}[a]=1` });
  }
  probes.push({ method, url: `${goodPath}?unknownKey=1` });
  if (method === 'GET' || method === 'DELETE') return probes;
  // Malformed bodies: wrong shapes, each declared key with values of every wrong type, bad encodings.
  for (const payload of [null, [], 'text', 42, { unknownKey: 1 }, { __proto__: { polluted: true } }, { constructor: { prototype: { x: 1 } } }]) {
    probes.push({ method, url: goodPath, payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
  }
  for (const key of schemaKeys(validate.payload)) {
    for (const value of WEIRD_VALUES) probes.push({ method, url: goodPath, payload: JSON.stringify({ [key]: value }), headers: { 'content-type': 'application/json' } });
  }
  for (const [type, body] of [
    ['application/json', '{"unclosed": '],
    ['application/json', '\u0000\u0001'],
    ['application/json', '{"a":1}'.repeat(3)],
    ['text/csv', 'email\n\u0000@x\n"unclosed'],
    ['text/plain', 'hello'],
    ['application/x-www-form-urlencoded', 'a=%00&b=%zz'],
    ['multipart/form-data; boundary=zzz', '--zzz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nnot an image\r\n--zzz--\r\n'],
    ['multipart/form-data', 'no boundary'],
    ['application/octet-stream', '\u0000\u0001\u0002']
  ]) {
    probes.push({ method, url: goodPath, payload: body, headers: { 'content-type': type! } });
  }
  // A truncated multipart body: @hapi/subtext answers 400 but leaves its payload-timeout timer running
  // (up to the route's payload timeout), which would keep this test process alive past tap's timeout
  // on the long-timeout upload routes; those get it only when their timeout is short.
  const payloadTimeout = (route.settings.payload as { timeout?: number | false } | undefined)?.timeout;
  if (typeof payloadTimeout === 'number' && payloadTimeout <= 15_000) {
    probes.push({ method, url: goodPath, payload: '--zzz\r\nbroken', headers: { 'content-type': 'multipart/form-data; boundary=zzz' } });
  }
  return probes;
}

function callerHeaders(route: RequestRoute, owner: Owner): Record<string, string> {
  const strategies = (route.settings.auth as { strategies?: string[] } | false | undefined) || undefined;
  const names = strategies?.strategies ?? [];
  if (names.includes('storefront')) return { 'x-storefront-token': owner.storefrontToken };
  if (names.includes('admin')) return { authorization: `Bearer ${owner.accessToken}`, 'x-store-id': owner.store.id };
  return {};
}

async function walk(t: Test, app: TestApp, owner: Owner, routes: RequestRoute[], validParams: Record<string, string>) {
  const failures: string[] = [];
  let count = 0;
  for (const route of routes) {
    const probes = probesFor(route, validParams);
    const started = Date.now();
    // Sixteen at a time: enough concurrency to be quick (the suite's 120 s per file), not so much that the pool is the story.
    for (let i = 0; i < probes.length; i += 16) {
      await Promise.all(
        probes.slice(i, i + 16).map(async (probe) => {
          count += 1;
          const response = await app.server.inject({
            method: probe.method,
            url: probe.url,
            payload: probe.payload as string | undefined,
            headers: { ...callerHeaders(route, owner), ...(probe.headers ?? {}) }
          });
          if (response.statusCode >= 500) failures.push(`${probe.method} ${probe.url.slice(0, 200)} ${String(probe.payload ?? '').slice(0, 120)} -> ${response.statusCode} ${response.payload.slice(0, 200)}`);
        })
      );
    }
    if (Date.now() - started > 3000) t.comment(`slow: ${route.method} ${route.path} ${Date.now() - started} ms`);
  }
  t.ok(count > routes.length * 20, `${count} probes over ${routes.length} routes`);
  t.same(failures, [], 'no probe answered 5xx');
}

// Ten thousand probes over a hundred routes: more than the suite's default 120 s per file on a busy machine.
t.setTimeout(300_000);

t.test('every registered route answers malformed params, queries and bodies without a 5xx', async (t) => {
  const app = await buildApp(t);
  const owner = await signupOwner(app);
  // Real ids so probes also reach past the 404s into the handlers.
  const product = await app.request({
    method: 'POST',
    url: '/admin/products',
    payload: { title: 'Walked', status: 'active', variants: [{ price: 100 }] },
    token: owner.accessToken,
    storeId: owner.store.id
  });
  const collection = await app.request({ method: 'POST', url: '/admin/collections', payload: { title: 'Walk', isPublished: true }, token: owner.accessToken, storeId: owner.store.id });
  const validParams: Record<string, string> = {
    productId: product.body.data.product.id,
    variantId: product.body.data.product.variants[0].id,
    collectionId: collection.body.data.collection.id,
    slug: product.body.data.product.slug
  };
  const routes = app.server
    .table()
    .filter((route) => route.path.startsWith('/api/v1/') && route.path !== '/api/v1/openapi.json')
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  t.ok(routes.length >= 30, `${routes.length} routes registered`);
  await walk(t, app, owner, routes, validParams);
  // The catch-all too: unknown paths and methods, whatever their body.
  const unknown = await app.server.inject({ method: 'POST', url: '/api/v1/nowhere', payload: '{"unclosed": ', headers: { 'content-type': 'application/json' } });
  t.equal(unknown.statusCode, 404, 'an unknown path is 404 whatever its body');
  const unknownBig = await app.server.inject({ method: 'PUT', url: '/nowhere/at/all', payload: 'x'.repeat(2 * 1024 * 1024), headers: { 'content-type': 'text/plain' } });
  t.equal(unknownBig.statusCode, 404, 'even a large body of an unknown type');
});
