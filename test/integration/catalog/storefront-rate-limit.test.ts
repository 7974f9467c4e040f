import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { freshMinute } from '../../helpers/rate-window.js';

t.test('storefront rate limit: per token and client address, under a per-token ceiling', async (t) => {
  const app = await buildApp(t, { env: { RATE_LIMIT_STOREFRONT_PER_CLIENT: '5', RATE_LIMIT_STOREFRONT_PER_TOKEN: '12' } });
  const owner = await signupOwner(app);
  const other = await signupOwner(app);
  const get = (token: string, remoteAddress: string) =>
    app.server.inject({ method: 'GET', url: '/api/v1/storefront/store', headers: { 'x-storefront-token': token }, remoteAddress });
  // Every count below is in one window (a run across a minute boundary once saw the ceiling's 13th request pass).
  await freshMinute();

  // Many requests in flight at once from one address: exactly the allowance passes.
  const burst = await Promise.all(Array.from({ length: 9 }, () => get(owner.storefrontToken, '203.0.113.1')));
  const statuses = burst.map((r) => r.statusCode).sort();
  t.same(statuses, [200, 200, 200, 200, 200, 429, 429, 429, 429], 'five per client address');
  const refused = burst.find((r) => r.statusCode === 429)!;
  t.equal(JSON.parse(refused.payload).error.code, 'rate_limited');
  t.ok(Number(refused.headers['retry-after']) >= 1, 'Retry-After says when to come back');

  // Other shoppers of the same store are not refused because one client was.
  t.equal((await get(owner.storefrontToken, '203.0.113.2')).statusCode, 200, 'another address still gets through');
  t.equal((await get(other.storefrontToken, '203.0.113.1')).statusCode, 200, 'the same address with another store token has its own allowance');

  // The token as a whole has a ceiling: 5 + 1 used; six more addresses bring it to 12.
  const spread = await Promise.all(Array.from({ length: 6 }, (_, i) => get(owner.storefrontToken, `198.51.100.${i + 1}`)));
  t.same(spread.map((r) => r.statusCode), [200, 200, 200, 200, 200, 200]);
  t.equal((await get(owner.storefrontToken, '198.51.100.99')).statusCode, 429, 'past the per-token ceiling even a fresh address waits');
  t.equal((await get(other.storefrontToken, '198.51.100.99')).statusCode, 200, "another store's token is unaffected");
});

t.test('the defaults fit a large store', async (t) => {
  const app = await buildApp(t);
  t.ok(app.ctx.config.rateLimits.storefrontPerTokenPerMinute >= 600_000, 'token ceiling of at least 10,000 req/s per process');
  t.ok(app.ctx.config.rateLimits.storefrontPerClientPerMinute >= 600, 'a shopper gets at least 10 req/s');
});
